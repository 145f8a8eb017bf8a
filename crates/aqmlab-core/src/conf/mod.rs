//! The scenario tree and the field reader.
//!
//! A TOML file is parsed once into a [`Node`] tree that remembers where each value came from
//! (a line of the file, or a `--set` override). Components read their parameters through
//! [`Fields`], which converts units, range-checks, reports the file, line and field of every
//! mistake, and refuses keys nobody asked for. The same reading code, run in *catalogue
//! mode* on an empty table, lists every parameter with its unit, default and meaning for
//! `aqmlab list`: parameters are documented where they are read and cannot drift.
//!
//! The typed values fields hold (durations, rates, sizes, limits) and their reading from TOML are
//! in `values.rs`; named choices (a key whose value is one of a few words, read as an enum) in
//! `choice.rs`.

use std::fmt;

use serde::Serialize;
use toml::de::{DeTable, DeValue};

mod choice;
mod values;

pub(crate) use choice::choice_enum;
pub use choice::Choice;
pub use values::{Bytes, Duration, DurationBound, FromNode, Limit, Prob, Rate, Seed};

/// Where a value was written.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A line (1-based) of the scenario file.
    Line(u32),
    /// A `--set KEY=VALUE` override.
    Set(String),
    /// Nowhere: a default.
    Default,
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub val: Val,
    pub at: Origin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Node>),
    Table(Table),
}

/// A table in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub entries: Vec<(String, Node)>,
}

impl Table {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn set(&mut self, key: &str, node: Node) {
        match self.get_mut(key) {
            Some(slot) => *slot = node,
            None => self.entries.push((key.to_string(), node)),
        }
    }
}

impl Val {
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Int(_) => "an integer",
            Val::Float(_) => "a float",
            Val::Bool(_) => "a boolean",
            Val::Array(_) => "an array",
            Val::Table(_) => "a table",
        }
    }
    pub fn show(&self) -> String {
        match self {
            Val::Str(s) => format!("'{s}'"),
            Val::Int(i) => i.to_string(),
            Val::Float(f) => f.to_string(),
            Val::Bool(b) => b.to_string(),
            Val::Array(_) => "an array".into(),
            Val::Table(_) => "a table".into(),
        }
    }
}

/// A mistake in a scenario: which file, which line, which field, what is wrong.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<u32>,
    /// `--set KEY` when the value came from an override.
    pub set_key: Option<String>,
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.set_key {
            write!(f, ": --set {key}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

pub type Result<T> = std::result::Result<T, ScenarioError>;

/// The file being read, for error messages.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: String,
}

impl Source {
    /// A path written in the scenario, relative to the scenario file's folder (as is; for text
    /// not read from a file, relative to the working directory).
    pub fn relative(&self, path: &str) -> std::path::PathBuf {
        let file = std::path::Path::new(&self.path);
        match file.parent() {
            Some(dir) if file.is_file() => dir.join(path),
            _ => std::path::PathBuf::from(path),
        }
    }

    pub fn error(&self, at: &Origin, field: &str, message: impl Into<String>) -> ScenarioError {
        let (line, set_key) = match at {
            Origin::Line(l) => (Some(*l), None),
            Origin::Set(k) => (None, Some(k.clone())),
            Origin::Default => (None, None),
        };
        ScenarioError { file: self.path.clone(), line, set_key, field: field.to_string(), message: message.into() }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing TOML text into the tree

struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> Self {
        LineIndex(std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }
    fn line(&self, offset: usize) -> u32 {
        (self.0.partition_point(|&start| start <= offset)) as u32
    }
}

fn convert(value: &DeValue<'_>, at: Origin, lines: &LineIndex, src: &Source, field: &str) -> Result<Node> {
    let val = match value {
        DeValue::String(s) => Val::Str(s.to_string()),
        DeValue::Integer(i) => {
            let text = i.as_str().replace('_', "");
            let parsed = match i.radix() {
                10 => text.parse::<i64>().ok(),
                radix => i64::from_str_radix(text.trim_start_matches(['+']).get(2..).unwrap_or(""), radix).ok(),
            };
            Val::Int(parsed.ok_or_else(|| {
                // TOML integers are signed; a seed (unsigned, like --seed) above that can be a string.
                let hint = if field.ends_with("seed") && text.parse::<u64>().is_ok() {
                    format!(" (above 2^63-1, TOML's largest integer; write a larger seed as a string: \"{text}\")")
                } else {
                    " (TOML integers are from -2^63 to 2^63-1)".to_string()
                };
                src.error(&at, field, format!("integer {} does not fit in 64 bits{hint}", i.as_str()))
            })?)
        }
        DeValue::Float(f) => {
            let text = f.as_str().replace('_', "");
            let parsed = match text.as_str() {
                "inf" | "+inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Some(f64::NAN),
                t => t.parse::<f64>().ok(),
            };
            Val::Float(parsed.ok_or_else(|| src.error(&at, field, format!("bad float {}", f.as_str())))?)
        }
        DeValue::Boolean(b) => Val::Bool(*b),
        DeValue::Datetime(d) => {
            return Err(src.error(&at, field, format!("dates are not used in scenarios (got {d})")))
        }
        DeValue::Array(items) => Val::Array(
            items
                .iter()
                .enumerate()
                .map(|(n, item)| {
                    let item_at = Origin::Line(lines.line(item.span().start));
                    convert(item.get_ref(), item_at, lines, src, &format!("{field}[{}]", n + 1))
                })
                .collect::<Result<_>>()?,
        ),
        DeValue::Table(t) => Val::Table(convert_table(t, lines, src, field)?),
    };
    Ok(Node { val, at })
}

fn convert_table(t: &DeTable<'_>, lines: &LineIndex, src: &Source, prefix: &str) -> Result<Table> {
    let mut entries: Vec<(usize, String, Node)> = Vec::with_capacity(t.len());
    for (key, value) in t.iter() {
        let name = key.get_ref().to_string();
        let field = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        let at = Origin::Line(lines.line(key.span().start));
        entries.push((key.span().start, name, convert(value.get_ref(), at, lines, src, &field)?));
    }
    // The parser's map is ordered by key; restore the order of the file.
    entries.sort_by_key(|(offset, _, _)| *offset);
    Ok(Table { entries: entries.into_iter().map(|(_, k, v)| (k, v)).collect() })
}

/// Parse TOML text into the tree; syntax errors name the line.
pub fn parse_toml(text: &str, src: &Source) -> Result<Table> {
    let lines = LineIndex::new(text);
    match DeTable::parse(text) {
        Ok(table) => convert_table(table.get_ref(), &lines, src, ""),
        Err(e) => {
            let at = e.span().map(|s| Origin::Line(lines.line(s.start))).unwrap_or(Origin::Default);
            let mut message = e.message().trim().replace('\n', " ");
            // Name the text the parser stopped at (the key of a duplicate key), when it is short
            // and printable.
            let near = e.span().and_then(|s| text.get(s)).map(str::trim).unwrap_or("");
            if !near.is_empty() && near.chars().count() <= 40 && !near.chars().any(char::is_control) {
                message = format!("{message} (at '{near}')");
            }
            Err(src.error(&at, "", format!("not valid TOML: {message}")))
        }
    }
}

/// Parse the value of a `--set KEY=VALUE` as TOML; anything that is not TOML is a string,
/// so `--set flow.udp.rate=2Mbps` needs no quotes.
pub fn parse_override_value(key: &str, text: &str) -> Node {
    let at = Origin::Set(key.to_string());
    let src = Source { path: "--set".into() };
    let lines = LineIndex::new(text);
    let val = match DeValue::parse(text.trim()) {
        Ok(v) => {
            convert(v.get_ref(), at.clone(), &lines, &src, key).map(|n| n.val).unwrap_or(Val::Str(text.to_string()))
        }
        Err(_) => Val::Str(text.to_string()),
    };
    let val = retag(val, &at);
    Node { val, at }
}

fn retag(val: Val, at: &Origin) -> Val {
    match val {
        Val::Array(items) => {
            Val::Array(items.into_iter().map(|n| Node { val: retag(n.val, at), at: at.clone() }).collect())
        }
        Val::Table(t) => Val::Table(Table {
            entries: t.entries.into_iter().map(|(k, n)| (k, Node { val: retag(n.val, at), at: at.clone() })).collect(),
        }),
        v => v,
    }
}

// ---------------------------------------------------------------------------------------------
// The reader

/// One documented parameter, for the catalogue.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ParamDoc {
    pub name: String,
    pub unit: String,
    /// The default as it would be written in a scenario, or `None` when there is none.
    pub default: Option<String>,
    /// The key must be given.
    pub required: bool,
    pub doc: String,
}

/// Reads the fields of one table, checking each and refusing unknown keys at `finish()`.
pub struct Fields<'a> {
    src: &'a Source,
    /// Human path of this table, such as `link[bottleneck].queue`.
    path: String,
    table: Option<&'a Table>,
    at: Origin,
    used: Vec<String>,
    docs: Option<&'a mut Vec<ParamDoc>>,
}

impl<'a> Fields<'a> {
    pub fn new(src: &'a Source, path: impl Into<String>, table: &'a Table, at: Origin) -> Self {
        Fields { src, path: path.into(), table: Some(table), at, used: Vec::new(), docs: None }
    }

    /// A reader in catalogue mode: every getter records its parameter and returns the default.
    pub fn catalogue(src: &'a Source, docs: &'a mut Vec<ParamDoc>) -> Self {
        Fields { src, path: String::new(), table: None, at: Origin::Default, used: Vec::new(), docs: Some(docs) }
    }

    pub fn is_catalogue(&self) -> bool {
        self.docs.is_some()
    }

    pub fn source(&self) -> &'a Source {
        self.src
    }

    /// The field path of key `key` in this table.
    pub fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Where key `key` is written (or the table, when it is absent).
    pub fn origin(&self, key: &str) -> Origin {
        self.table.and_then(|t| t.get(key)).map(|n| n.at.clone()).unwrap_or_else(|| self.at.clone())
    }

    /// An error about key `key`.
    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        self.src.error(&self.origin(key), &self.field(key), message)
    }

    /// Fail with `message` about `key` unless `ok` (always passes in catalogue mode).
    pub fn ensure(&self, ok: bool, key: &str, message: impl Into<String>) -> Result<()> {
        if ok || self.is_catalogue() {
            Ok(())
        } else {
            Err(self.error(key, message))
        }
    }

    fn record<T: FromNode>(&mut self, key: &str, default: Option<&T>, doc: &str) {
        if self.docs.is_some() {
            self.record_doc(key, &T::unit(), default.map(|d| d.show()), false, doc);
        }
    }

    fn record_doc(&mut self, key: &str, unit: &str, default: Option<String>, required: bool, doc: &str) {
        if let Some(docs) = self.docs.as_deref_mut() {
            if !docs.iter().any(|d| d.name == key) {
                docs.push(ParamDoc {
                    name: key.to_string(),
                    unit: unit.to_string(),
                    default,
                    required,
                    doc: doc.to_string(),
                });
            }
        }
    }

    /// The raw node of a key read by hand (a list, a pair of names), documented for the
    /// catalogue with its own `unit` description.
    pub fn documented(&mut self, key: &str, unit: &str, required: bool, doc: &str) -> Option<&'a Node> {
        self.record_doc(key, unit, None, required, doc);
        self.node(key)
    }

    /// The raw node of `key`, marking it used.
    pub fn node(&mut self, key: &str) -> Option<&'a Node> {
        self.used.push(key.to_string());
        self.table.and_then(|t| t.get(key))
    }

    /// An optional parameter.
    pub fn opt<T: FromNode>(&mut self, key: &str, doc: &str) -> Result<Option<T>> {
        self.record::<T>(key, None, doc);
        match self.node(key) {
            None => Ok(None),
            Some(n) => T::from_node(&n.val).map(Some).map_err(|m| self.error(key, m)),
        }
    }

    /// A parameter with a default.
    pub fn or<T: FromNode>(&mut self, key: &str, default: T, doc: &str) -> Result<T> {
        self.record(key, Some(&default), doc);
        match self.node(key) {
            None => Ok(default),
            Some(n) => T::from_node(&n.val).map_err(|m| self.error(key, m)),
        }
    }

    /// A required parameter. In catalogue mode returns `placeholder`.
    pub fn req<T: FromNode>(&mut self, key: &str, placeholder: T, doc: &str) -> Result<T> {
        if self.docs.is_some() {
            self.record_doc(key, &T::unit(), None, true, doc);
        }
        if self.is_catalogue() {
            return Ok(placeholder);
        }
        match self.node(key) {
            None => Err(self.src.error(&self.at, &self.field(key), "is required but missing")),
            Some(n) => T::from_node(&n.val).map_err(|m| self.error(key, m)),
        }
    }

    /// One of a named choice's variants, written by its name (the catalogue lists the names).
    pub fn choice<C: Choice>(&mut self, key: &str, default: C, doc: &str) -> Result<C> {
        let allowed = C::NAMES;
        let doc = format!("{doc} (one of: {})", allowed.join(", "));
        let value: String = self.or(key, default.name().to_string(), &doc)?;
        C::from_name(&value).ok_or_else(|| {
            let hint = crate::suggest::did_you_mean(&value, allowed.iter().copied());
            self.error(key, format!("'{value}' is not allowed{hint} (one of: {})", allowed.join(", ")))
        })
    }

    /// A nested table (such as a link's `queue`), or `None` if absent.
    pub fn table(&mut self, key: &str, doc: &str) -> Result<Option<(&'a Table, Origin)>> {
        match self.documented(key, "table", false, doc) {
            None => Ok(None),
            Some(Node { val: Val::Table(t), at }) => Ok(Some((t, at.clone()))),
            Some(n) => Err(self.error(key, format!("expected a table, got {}", n.val.type_name()))),
        }
    }

    /// Refuse keys that no getter asked for: a typo must not be silently ignored.
    pub fn finish(self) -> Result<()> {
        let Some(table) = self.table else { return Ok(()) };
        for (key, node) in &table.entries {
            if !self.used.iter().any(|u| u == key) {
                let mut known: Vec<&str> = self.used.iter().map(String::as_str).collect();
                known.sort();
                known.dedup();
                let hint = crate::suggest::did_you_mean(key, known.iter().copied());
                return Err(self.src.error(
                    &node.at,
                    &self.field(key),
                    format!("unknown key{hint} (allowed here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

/// An I/O error's message without Rust's "(os error N)" suffix, as a one-line error shows it.
pub fn io_message(e: &std::io::Error) -> String {
    let message = e.to_string();
    message.split(" (os error").next().unwrap_or(&message).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source { path: "t.toml".into() }
    }

    #[test]
    fn values_keep_their_lines_and_file_order() {
        let t = parse_toml("b = 1\n\n[sec]\nz = \"x\"\na = 2.5\n", &src()).unwrap();
        assert_eq!(t.entries[0].0, "b");
        assert_eq!(t.entries[0].1.at, Origin::Line(1));
        let Val::Table(sec) = &t.get("sec").unwrap().val else { panic!() };
        assert_eq!(sec.entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["z", "a"]);
        assert_eq!(sec.get("a").unwrap().at, Origin::Line(5));
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let e = parse_toml("a = 1\nb = = 2\n", &src()).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().starts_with("t.toml:2: not valid TOML"), "{e}");
    }

    #[test]
    fn reader_checks_types_units_and_unknown_keys() {
        let t = parse_toml("rate = \"10Mbit\"\nlimit = 0\nmax_p = 1.5\ntypo = 1\n", &src()).unwrap();
        let s = src();
        let mut f = Fields::new(&s, "link[x].queue", &t, Origin::Line(1));
        let e = f.req::<Rate>("rate", Rate(0), "").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:1: link[x].queue.rate: '10Mbit' has an unknown unit 'Mbit' (allowed: bps, kbps, Kbps, Mbps, Gbps)"
        );
        assert!(f.req::<Limit>("limit", Limit::Unbounded, "").unwrap_err().to_string().starts_with("t.toml:2:"));
        assert!(f.or("max_p", Prob(0.1), "").unwrap_err().message.contains("not a probability"));
        let e = f.finish().unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.message.starts_with("unknown key (allowed here: limit, max_p, rate)"), "{}", e.message);
    }

    #[test]
    fn missing_required_field_points_at_its_table() {
        let t = parse_toml("x = 1", &src()).unwrap();
        let s = src();
        let mut f = Fields::new(&s, "flow[udp]", &t, Origin::Line(7));
        let e = f.req::<Rate>("rate", Rate(0), "").unwrap_err();
        assert_eq!(e.to_string(), "t.toml:7: flow[udp].rate: is required but missing");
    }

    #[test]
    fn catalogue_mode_records_parameters_with_defaults() {
        let s = src();
        let mut docs = Vec::new();
        let mut f = Fields::catalogue(&s, &mut docs);
        assert_eq!(f.or("max_p", Prob(0.1), "maximum drop probability").unwrap(), Prob(0.1));
        f.req::<Rate>("rate", Rate(1), "sending rate").unwrap();
        drop(f);
        assert_eq!(docs[0].default.as_deref(), Some("0.1"));
        assert_eq!(docs[1].default, None);
    }

    #[test]
    fn override_values_are_toml_or_plain_strings() {
        assert_eq!(parse_override_value("k", "2Mbps").val, Val::Str("2Mbps".into()));
        assert_eq!(parse_override_value("k", "30").val, Val::Int(30));
        assert_eq!(parse_override_value("k", "\"red\"").val, Val::Str("red".into()));
        assert_eq!(parse_override_value("k", "red").val, Val::Str("red".into()));
    }
}
