//! Text columns: every value of a column in one buffer.

/// A text column stored as one buffer and the end of each value in it (as Arrow stores
/// strings): a row costs no allocation of its own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Texts {
    bytes: String,
    /// Where each value ends in `bytes`, and whether it is there at all (`None` is a gap).
    ends: Vec<usize>,
    present: Vec<bool>,
}

impl Texts {
    pub fn with_capacity(rows: usize) -> Self {
        Self { bytes: String::new(), ends: Vec::with_capacity(rows), present: Vec::with_capacity(rows) }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn push(&mut self, value: Option<&str>) {
        self.bytes.push_str(value.unwrap_or(""));
        self.ends.push(self.bytes.len());
        self.present.push(value.is_some());
    }

    pub fn get(&self, row: usize) -> Option<&str> {
        let start = if row == 0 { 0 } else { self.ends[row - 1] };
        self.present[row].then(|| &self.bytes[start..self.ends[row]])
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&str>> + '_ {
        (0..self.len()).map(|row| self.get(row))
    }

    /// The values one after another, UTF-8 (a gap adds nothing).
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_bytes()
    }

    /// Where each value ends in [`Texts::bytes`].
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// Whether each row has a value (false: a gap, `None`).
    pub fn present(&self) -> &[bool] {
        &self.present
    }
}

impl<'a> FromIterator<Option<&'a str>> for Texts {
    fn from_iter<I: IntoIterator<Item = Option<&'a str>>>(values: I) -> Self {
        let mut texts = Texts::default();
        values.into_iter().for_each(|v| texts.push(v));
        texts
    }
}
