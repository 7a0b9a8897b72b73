//! Format facts kept beside the scene for `info`, the details panel and reverse engineers:
//! raw fields, titled detail tables, and the choices the opener made among sibling files.

use serde::Serialize;

/// A raw, not-yet-understood field kept for people reverse-engineering the format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawField {
    /// The field's name: most are fixed text, borrowed with no allocation of their own.
    pub name: std::borrow::Cow<'static, str>,
    /// Absolute file offset of the field.
    pub offset: u64,
    pub value: u64,
}

impl RawField {
    pub fn new(name: impl Into<std::borrow::Cow<'static, str>>, offset: u64, value: u64) -> Self {
        Self { name: name.into(), offset, value }
    }
}

/// One choice of [`Scene::choices`](super::Scene::choices).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct OpenChoice {
    /// Stable key for picks ([`crate::formats::Pick`]), e.g. `skin_profile`.
    pub key: String,
    /// What the UI calls it, e.g. "Skin profile".
    pub label: String,
    pub options: Vec<String>,
    /// Per option: whether it can be picked (a declared skin file may be missing).
    pub available: Vec<bool>,
    /// The option in use.
    pub selected: Option<usize>,
}

/// A titled table of a format's own facts: rows of named values, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DetailSection {
    pub title: String,
    pub rows: Vec<DetailRow>,
}

/// One row of a [`DetailSection`]: `(column, value)` pairs, serialised as an ordered JSON object.
/// Column names are fixed words; the values are written one after another into one string,
/// each cell keeping where its value ends, so a row costs two allocations however many
/// columns it has (a string per value made the detail tables a tenth of an M2 decode).
#[derive(Clone, PartialEq)]
pub struct DetailRow {
    text: String,
    /// (column, end of its value in `text`), in column order.
    ends: Vec<(&'static str, usize)>,
}

impl Default for DetailRow {
    fn default() -> Self {
        // Sized for the longest rows the formats write, so that they do not regrow.
        Self { text: String::with_capacity(96), ends: Vec::with_capacity(12) }
    }
}

impl std::fmt::Debug for DetailRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.cells()).finish()
    }
}

impl DetailRow {
    /// Adds a column (builder style). Pass `format_args!` rather than `format!` to format the
    /// value once, straight into the row.
    pub fn with(mut self, key: &'static str, value: impl std::fmt::Display) -> Self {
        self.push(key, value);
        self
    }

    /// Adds a column at the end.
    pub fn push(&mut self, key: &'static str, value: impl std::fmt::Display) {
        use std::fmt::Write;
        // Writing to a String cannot fail; a `Display` that reports an error leaves what it wrote.
        let _ = write!(self.text, "{value}");
        self.ends.push((key, self.text.len()));
    }

    /// The `(column, value)` pairs, in order.
    pub fn cells(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(key, end)| {
            let value = self.text.get(start..end).unwrap_or("");
            start = end;
            (key, value)
        })
    }
}

impl Serialize for DetailRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.ends.len()))?;
        for (k, v) in self.cells() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_rows_keep_their_cells_in_order() {
        let mut row =
            DetailRow::default().with("name", "tank").with("empty", "").with("flags", format_args!("{:#x}", 255));
        row.push("é", 3.5);
        let cells: Vec<(&str, &str)> = row.cells().collect();
        assert_eq!(cells, [("name", "tank"), ("empty", ""), ("flags", "0xff"), ("é", "3.5")]);
        // Debug shows the cells, not the joined text.
        assert_eq!(format!("{row:?}"), r#"{"name": "tank", "empty": "", "flags": "0xff", "é": "3.5"}"#);
        // Serialised as an ordered object, as before.
        assert_eq!(serde_json::to_string(&row).unwrap(), r#"{"name":"tank","empty":"","flags":"0xff","é":"3.5"}"#);
        // Rows written alike are equal, whatever their capacity.
        let again = DetailRow::default().with("name", "tank").with("empty", "").with("flags", "0xff").with("é", "3.5");
        assert_eq!(row, again);
        assert_ne!(row, DetailRow::default().with("name", "tankempty").with("flags", "0xff").with("é", "3.5"));
    }
}
