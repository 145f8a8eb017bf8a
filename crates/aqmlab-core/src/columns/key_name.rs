//! A map key as the suffix of a column name (`drops_by_reason.overflow`).

use serde::ser::{self, Impossible, Serialize};

use super::ColumnError;

/// Appends a map key to a column name as JSON would write it as an object key: text as itself,
/// a unit variant by its name, a number in decimal.
pub(super) struct KeyName<'a>(pub(super) &'a mut String);

impl KeyName<'_> {
    fn number(self, v: impl std::fmt::Display) -> Result<(), ColumnError> {
        use std::fmt::Write;
        write!(self.0, "{v}").map_err(|e| ColumnError(e.to_string()))
    }
}

impl ser::Serializer for KeyName<'_> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = Impossible<(), ColumnError>;
    type SerializeTuple = Impossible<(), ColumnError>;
    type SerializeTupleStruct = Impossible<(), ColumnError>;
    type SerializeTupleVariant = Impossible<(), ColumnError>;
    type SerializeMap = Impossible<(), ColumnError>;
    type SerializeStruct = Impossible<(), ColumnError>;
    type SerializeStructVariant = Impossible<(), ColumnError>;

    fn serialize_str(self, v: &str) -> Result<(), ColumnError> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), ColumnError> {
        self.0.push(v);
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), ColumnError> {
        self.0.push_str(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    integers!(number);

    refuse! {
        serialize_bool(bool) -> (); serialize_f32(f32) -> (); serialize_f64(f64) -> ();
        serialize_bytes(&[u8]) -> (); serialize_none() -> (); serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), ColumnError> {
        Err(ColumnError("a map key cannot be an enum variant with data".into()))
    }
}
