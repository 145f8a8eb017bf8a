//! Records into columns: a table of one array per column, built by serialising each row (any
//! `Serialize` struct) through a serde serializer that appends its fields to the columns.
//!
//! The results cross the binding this way (one array per column, not one object per row), so a
//! run of 100,000 flows hands Python a few dozen arrays instead of 100,000 dictionaries. The
//! columns follow the JSON document's keys, so the tables and the JSON never disagree:
//! - a scalar field is a column of its name; `Option` is the same column, `None` a gap;
//! - a map field (`drops_by_reason`) is one column per key, `field.key` (as pandas'
//!   `json_normalize` names them), in key order, and a row without the key has a gap;
//! - fields given to [`Table::push`] as `skip` (nested lists, such as a link's flows) are left out.
//!
//! Gaps are 0 in integer columns (only count maps leave gaps in them), NaN in float columns and
//! `None` in text columns. Integers are `i64`: a count beyond 2^63 is refused, not wrapped.

use std::collections::BTreeMap;

use serde::ser::{self, Impossible, Serialize};

mod texts;

use key_name::KeyName;
pub use texts::Texts;

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    Text(Texts),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Int(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pad with gaps to `n` rows.
    fn pad(&mut self, n: usize) {
        match self {
            Column::Int(v) => v.resize(n, 0),
            Column::Float(v) => v.resize(n, f64::NAN),
            Column::Bool(v) => v.resize(n, false),
            Column::Text(v) => (v.len()..n).for_each(|_| v.push(None)),
        }
    }
}

/// A cell's value as serde hands it over.
enum Cell<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Text, borrowed for as long as the cell is set (copied into the column's buffer).
    Text(&'a str),
    Gap,
}

/// Columns of equal length, in the order their names first appeared (map keys sorted within
/// their field's place, since the maps are ordered).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    rows: usize,
    names: Vec<String>,
    columns: Vec<Column>,
    index: BTreeMap<String, usize>,
    /// Where the next cell's column probably is: rows of one struct bring their fields in one
    /// order, so the column after the last one set is checked before the name index (at
    /// 100,000 rows of 40 fields, the index's look-ups were most of a table's time).
    next: usize,
    /// Rows expected, reserved in each column as it appears ([`Table::with_rows`]).
    capacity: usize,
    /// Cells set in the row being pushed: when every column has one, none needs a gap.
    cells_in_row: usize,
    /// The fields kept ([`Table::keeping`]); all when None.
    keep: Option<Vec<String>>,
}

/// Why a row could not be taken: a field of a shape a column cannot hold.
#[derive(Debug)]
pub struct ColumnError(pub String);

impl std::fmt::Display for ColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ColumnError {}
impl ser::Error for ColumnError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ColumnError(msg.to_string())
    }
}

impl Table {
    pub fn new() -> Self {
        Self::default()
    }

    /// A table that expects `rows` rows: each column reserves them when it appears, instead of
    /// growing (and copying itself) as rows come.
    pub fn with_rows(rows: usize) -> Self {
        Self { capacity: rows, ..Self::default() }
    }

    /// Keep only the fields named in `fields` (all when None); a map field by its name.
    pub fn keeping(mut self, fields: Option<&[&str]>) -> Self {
        self.keep = fields.map(|f| f.iter().map(|s| s.to_string()).collect());
        self
    }

    fn keeps(&self, field: &str) -> bool {
        self.keep.as_ref().is_none_or(|keep| keep.iter().any(|k| k == field))
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The columns with their names, in order.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &Column)> {
        self.names.iter().map(String::as_str).zip(&self.columns)
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.index.get(name).map(|&i| &self.columns[i])
    }

    /// Append one row: the fields of `record` (a struct), leaving out those named in `skip`.
    /// `extra` comes first: fields the record does not carry (the link a per-link flow row
    /// belongs to).
    pub fn push<T: Serialize>(&mut self, extra: &[(&str, &str)], record: &T, skip: &[&str]) -> Result<(), ColumnError> {
        self.next = 0;
        self.cells_in_row = 0;
        for (name, value) in extra {
            if self.keeps(name) {
                self.set(name, Cell::Text(value))?;
            }
        }
        record.serialize(RowSerializer { table: self, skip })?;
        self.rows += 1;
        if self.cells_in_row < self.columns.len() {
            for c in &mut self.columns {
                c.pad(self.rows);
            }
        }
        debug_assert!(self.columns.iter().all(|c| c.len() == self.rows), "a field set twice in one row");
        Ok(())
    }

    fn set(&mut self, name: &str, cell: Cell) -> Result<(), ColumnError> {
        let expected = self.names.get(self.next).is_some_and(|n| n == name);
        let at = match if expected { Some(&self.next) } else { self.index.get(name) } {
            Some(&i) => i,
            None => {
                let n = self.capacity;
                let column = match cell {
                    Cell::Int(_) => Column::Int(Vec::with_capacity(n)),
                    Cell::Float(_) | Cell::Gap => Column::Float(Vec::with_capacity(n)),
                    Cell::Bool(_) => Column::Bool(Vec::with_capacity(n)),
                    Cell::Text(_) => Column::Text(Texts::with_capacity(n)),
                };
                self.index.insert(name.to_string(), self.columns.len());
                self.names.push(name.to_string());
                self.columns.push(column);
                self.columns.len() - 1
            }
        };
        self.next = at + 1;
        self.cells_in_row += 1;
        let rows = self.rows;
        let column = &mut self.columns[at];
        column.pad(rows);
        // A column that began with gaps (all None so far) takes the type of its first value.
        let typed: Option<fn(usize) -> Column> = match &cell {
            Cell::Int(_) => Some(|rows| Column::Int(vec![0; rows])),
            Cell::Bool(_) => Some(|rows| Column::Bool(vec![false; rows])),
            Cell::Text(_) => Some(|rows| Column::Text((0..rows).map(|_| None).collect())),
            Cell::Float(_) | Cell::Gap => None,
        };
        if let (Column::Float(v), Some(typed)) = (&*column, typed) {
            if v.iter().all(|x| x.is_nan()) {
                *column = typed(rows);
            }
        }
        match (column, cell) {
            (Column::Int(v), Cell::Int(x)) => v.push(x),
            (Column::Float(v), Cell::Float(x)) => v.push(x),
            // An integer in a float column (a rate that happens to be whole) stays a float.
            (Column::Float(v), Cell::Int(x)) => v.push(x as f64),
            (Column::Float(v), Cell::Gap) => v.push(f64::NAN),
            (Column::Int(v), Cell::Gap) => v.push(0),
            (Column::Bool(v), Cell::Bool(x)) => v.push(x),
            (Column::Bool(v), Cell::Gap) => v.push(false),
            (Column::Text(v), Cell::Text(x)) => v.push(Some(x)),
            (Column::Text(v), Cell::Gap) => v.push(None),
            _ => return Err(ColumnError(format!("column '{name}' holds values of two types"))),
        }
        Ok(())
    }
}

/// Serialises one struct as one row of a table.
struct RowSerializer<'a> {
    table: &'a mut Table,
    skip: &'a [&'a str],
}

/// Serialises one field's value into the cell(s) named `name` (a map into `name.key`).
struct CellSerializer<'a> {
    table: &'a mut Table,
    name: &'a str,
}

/// The parts of serde's data model a row cannot hold, refused with the serializer's name.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, ColumnError> {
            Err(ColumnError(concat!("a column cannot hold ", stringify!($method)).into()))
        })*
    };
}

/// Serde's eight integer methods, each handing its value to the serializer's method `$to`.
macro_rules! integers {
    ($to:ident) => {
        integers!($to: serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
            serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64));
    };
    ($to:ident: $($method:ident($ty:ty)),*) => {
        $(fn $method(self, v: $ty) -> Result<(), ColumnError> {
            self.$to(v)
        })*
    };
}

// After the macros, which it uses.
mod key_name;

impl<'a> ser::Serializer for RowSerializer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = Impossible<(), ColumnError>;
    type SerializeTuple = Impossible<(), ColumnError>;
    type SerializeTupleStruct = Impossible<(), ColumnError>;
    type SerializeTupleVariant = Impossible<(), ColumnError>;
    type SerializeMap = Impossible<(), ColumnError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), ColumnError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, ColumnError> {
        Ok(self)
    }

    refuse! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> (); serialize_i16(i16) -> (); serialize_i32(i32) -> (); serialize_i64(i64) -> ();
        serialize_u8(u8) -> (); serialize_u16(u16) -> (); serialize_u32(u32) -> (); serialize_u64(u64) -> ();
        serialize_f32(f32) -> (); serialize_f64(f64) -> (); serialize_char(char) -> (); serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> (); serialize_none() -> (); serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), ColumnError> {
        Err(ColumnError("a row cannot be an enum variant".into()))
    }
}

impl ser::SerializeStruct for RowSerializer<'_> {
    type Ok = ();
    type Error = ColumnError;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), ColumnError> {
        if self.skip.contains(&key) || !self.table.keeps(key) {
            return Ok(());
        }
        value.serialize(CellSerializer { table: self.table, name: key })
    }

    fn end(self) -> Result<(), ColumnError> {
        Ok(())
    }
}

impl<'a> CellSerializer<'a> {
    fn put(self, cell: Cell) -> Result<(), ColumnError> {
        self.table.set(self.name, cell)
    }
    fn int<T: TryInto<i64>>(self, x: T) -> Result<(), ColumnError> {
        let name = self.name;
        match x.try_into() {
            Ok(x) => self.put(Cell::Int(x)),
            Err(_) => Err(ColumnError(format!("column '{name}': an integer beyond 2^63"))),
        }
    }
}

impl<'a> ser::Serializer for CellSerializer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = Impossible<(), ColumnError>;
    type SerializeTuple = Impossible<(), ColumnError>;
    type SerializeTupleStruct = Impossible<(), ColumnError>;
    type SerializeTupleVariant = Impossible<(), ColumnError>;
    type SerializeMap = MapCells<'a>;
    type SerializeStruct = Impossible<(), ColumnError>;
    type SerializeStructVariant = Impossible<(), ColumnError>;

    fn serialize_bool(self, v: bool) -> Result<(), ColumnError> {
        self.put(Cell::Bool(v))
    }
    integers!(int);
    fn serialize_f32(self, v: f32) -> Result<(), ColumnError> {
        self.put(Cell::Float(v as f64))
    }
    fn serialize_f64(self, v: f64) -> Result<(), ColumnError> {
        self.put(Cell::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<(), ColumnError> {
        self.put(Cell::Text(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<(), ColumnError> {
        self.put(Cell::Text(v))
    }
    fn serialize_none(self) -> Result<(), ColumnError> {
        self.put(Cell::Gap)
    }
    fn serialize_unit(self) -> Result<(), ColumnError> {
        self.put(Cell::Gap)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), ColumnError> {
        value.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), ColumnError> {
        self.put(Cell::Text(variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapCells<'a>, ColumnError> {
        Ok(MapCells { table: self.table, field: self.name, name: String::new() })
    }

    refuse! {
        serialize_bytes(&[u8]) -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), ColumnError> {
        Err(ColumnError(format!("column '{}': a column cannot hold an enum variant with data", self.name)))
    }
}

/// A map field's entries, each a column `field.key`.
struct MapCells<'a> {
    table: &'a mut Table,
    field: &'a str,
    /// `field.key` of the entry whose value comes next (one buffer for every entry of the row).
    name: String,
}

impl ser::SerializeMap for MapCells<'_> {
    type Ok = ();
    type Error = ColumnError;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), ColumnError> {
        self.name.clear();
        self.name.push_str(self.field);
        self.name.push('.');
        key.serialize(KeyName(&mut self.name))
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ColumnError> {
        if self.name.is_empty() {
            return Err(ColumnError("a map value without its key".into()));
        }
        let result = value.serialize(CellSerializer { table: self.table, name: &self.name });
        self.name.clear();
        result
    }

    fn end(self) -> Result<(), ColumnError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Row {
        name: String,
        group: Option<String>,
        sent: u64,
        rate: f64,
        rtt: Option<f64>,
        by_reason: BTreeMap<&'static str, u64>,
        nested: Vec<u32>,
    }

    fn row(name: &str, group: Option<&str>, reasons: &[(&'static str, u64)]) -> Row {
        Row {
            name: name.into(),
            group: group.map(str::to_string),
            sent: 7,
            rate: 1.5,
            rtt: None,
            by_reason: reasons.iter().copied().collect(),
            nested: vec![1, 2],
        }
    }

    #[test]
    fn rows_become_columns_with_maps_spread_and_gaps_filled() {
        let mut t = Table::new();
        t.push(&[("link", "b")], &row("a", None, &[("overflow", 3)]), &["nested"]).unwrap();
        t.push(&[("link", "b")], &row("c", Some("g"), &[("early", 2), ("overflow", 1)]), &["nested"]).unwrap();
        t.push(&[("link", "d")], &row("e", None, &[]), &["nested"]).unwrap();
        let names: Vec<&str> = t.columns().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            ["link", "name", "group", "sent", "rate", "rtt", "by_reason.overflow", "by_reason.early"],
            "in order of first appearance; the skipped field is left out"
        );
        assert_eq!(t.rows(), 3);
        assert!(t.columns().all(|(_, c)| c.len() == 3));
        assert_eq!(t.column("by_reason.overflow"), Some(&Column::Int(vec![3, 1, 0])));
        assert_eq!(t.column("by_reason.early"), Some(&Column::Int(vec![0, 2, 0])), "a gap before is 0 too");
        assert_eq!(t.column("group"), Some(&Column::Text([None, Some("g"), None].into_iter().collect())));
        let Some(Column::Text(names)) = t.column("name") else { panic!("name is a text column") };
        assert_eq!(names.iter().collect::<Vec<_>>(), [Some("a"), Some("c"), Some("e")]);
        assert_eq!(t.column("sent"), Some(&Column::Int(vec![7, 7, 7])));
        let Some(Column::Float(rtt)) = t.column("rtt") else { panic!("rtt is a float column of gaps") };
        assert!(rtt.iter().all(|x| x.is_nan()));
    }

    #[test]
    fn map_keys_are_named_as_json_names_them() {
        #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
        #[serde(rename_all = "snake_case")]
        enum Reason {
            EarlyDrop,
        }
        #[derive(Serialize)]
        struct Keys {
            by_number: BTreeMap<u32, u64>,
            by_variant: BTreeMap<Reason, u64>,
        }
        let mut t = Table::new();
        let row = Keys { by_number: [(7, 1)].into(), by_variant: [(Reason::EarlyDrop, 2)].into() };
        t.push(&[], &row, &[]).unwrap();
        let names: Vec<&str> = t.columns().map(|(n, _)| n).collect();
        assert_eq!(names, ["by_number.7", "by_variant.early_drop"]);
        let json = serde_json::to_value(&row).unwrap();
        assert!(json["by_number"].get("7").is_some() && json["by_variant"].get("early_drop").is_some());
    }

    #[test]
    fn a_count_beyond_i64_is_refused_not_wrapped() {
        #[derive(Serialize)]
        struct Big {
            n: u64,
        }
        let err = Table::new().push(&[], &Big { n: u64::MAX }, &[]).unwrap_err();
        assert!(err.to_string().contains("'n'"), "{err}");
    }
}
