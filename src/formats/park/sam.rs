//! The `.sam` settings text (sam.md): `key value…` lines with `#` comments. A key is a group
//! with an optional `[n]`, then one or more dotted field names, and takes one value per field
//! (`PeepTypes[0].A.B 80 300` sets `PeepTypes[0].A` and `PeepTypes[0].B`); the rest of the line
//! is prose. A key followed by a `---` fenced block (`Info.Shape`) takes the block. A value in
//! double quotes may hold spaces. Keys compare case-insensitively; a later line wins.
//! "Not said" (no entry) is kept apart from "said 0"; an item's file is layered over its
//! folder's category file key by key ([`Sam::over`]).

use std::collections::BTreeMap;

use serde::Serialize;

/// The most fields one key may name; the game refuses a seventeenth.
pub const MAX_FIELDS: usize = 16;

/// One value as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SamValue {
    Word(String),
    /// A fenced block's lines, without the fences.
    Block(Vec<String>),
}

/// One setting: the key as written, its value, and the 1-based line it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamEntry {
    pub key: String,
    pub value: SamValue,
    pub line: usize,
}

/// A parsed file (or a layered stack of them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Sam {
    /// Lower-cased key to its entry.
    entries: BTreeMap<String, SamEntry>,
    pub warnings: Vec<String>,
}

/// Splits a line into words: whitespace-separated, a `"…"` word whole, `#` outside quotes
/// ending the line.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&ch) = chars.peek() {
        if ch.is_whitespace() {
            chars.next();
        } else if ch == '#' {
            break;
        } else if ch == '"' {
            chars.next();
            let word: String = chars.by_ref().take_while(|&c| c != '"').collect();
            out.push(word);
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '#' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            out.push(word);
        }
    }
    out
}

/// The full keys a written key names: `G[n].A.B` gives `G[n].A` and `G[n].B`; a key with no
/// dot names itself.
pub fn expand_key(key: &str) -> Vec<String> {
    let mut parts = key.split('.');
    let group = parts.next().unwrap_or_default();
    let fields: Vec<&str> = parts.collect();
    if fields.is_empty() {
        return vec![key.to_string()];
    }
    fields.iter().map(|field| format!("{group}.{field}")).collect()
}

impl Sam {
    /// Parses `.sam` text. Never fails: a line it cannot use is a warning.
    pub fn parse(text: &str) -> Sam {
        let mut sam = Sam::default();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while let Some(line) = lines.get(i) {
            let number = i + 1;
            i += 1;
            let mut tokens = words(line).into_iter();
            let Some(key) = tokens.next() else { continue };
            if key == "---" {
                sam.warnings.push(format!("line {number}: a block fence with no key before it"));
                continue;
            }
            let keys = expand_key(&key);
            if keys.len() > MAX_FIELDS {
                sam.warnings.push(format!("line {number}: {key} names {} fields, more than {MAX_FIELDS}", keys.len()));
                continue;
            }
            let values: Vec<String> = tokens.take(keys.len()).collect();
            if values.is_empty() && lines.get(i).is_some_and(|next| next.trim() == "---") {
                let mut block = Vec::new();
                let mut closed = false;
                i += 1;
                while let Some(row) = lines.get(i) {
                    i += 1;
                    if row.trim() == "---" {
                        closed = true;
                        break;
                    }
                    block.push(row.trim_end().to_string());
                }
                if !closed {
                    sam.warnings.push(format!("line {number}: {key}'s block has no closing ---"));
                }
                sam.set(&key, SamValue::Block(block), number);
                continue;
            }
            if values.len() < keys.len() {
                sam.warnings.push(format!(
                    "line {number}: {key} names {} fields but {} values follow",
                    keys.len(),
                    values.len()
                ));
            }
            for (full, value) in keys.iter().zip(values) {
                sam.set(full, SamValue::Word(value), number);
            }
        }
        sam
    }

    fn set(&mut self, key: &str, value: SamValue, line: usize) {
        self.entries.insert(key.to_ascii_lowercase(), SamEntry { key: key.to_string(), value, line });
    }

    /// This file laid over `under`, key by key: a key this file says wins, any other is
    /// `under`'s.
    pub fn over(&self, under: &Sam) -> Sam {
        let mut entries = under.entries.clone();
        entries.extend(self.entries.iter().map(|(k, v)| (k.clone(), v.clone())));
        let warnings = under.warnings.iter().chain(&self.warnings).cloned().collect();
        Sam { entries, warnings }
    }

    /// The entry for `key`, `None` when no layer says it.
    pub fn get(&self, key: &str) -> Option<&SamEntry> {
        self.entries.get(&key.to_ascii_lowercase())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> impl Iterator<Item = &SamEntry> {
        self.entries.values()
    }

    /// The word `key` says, `None` when not said (or said as a block).
    pub fn word(&self, key: &str) -> Option<&str> {
        match &self.get(key)?.value {
            SamValue::Word(w) => Some(w),
            SamValue::Block(_) => None,
        }
    }

    /// `key` as a number: `None` when not said, `Some(Err)` when said but not a number.
    pub fn number(&self, key: &str) -> Option<Result<f64, String>> {
        let entry = self.get(key)?;
        Some(match &entry.value {
            SamValue::Word(w) => {
                w.parse::<f64>().map_err(|_| format!("{} on line {} is {w:?}, not a number", entry.key, entry.line))
            }
            SamValue::Block(_) => Err(format!("{} on line {} is a block, not a number", entry.key, entry.line)),
        })
    }

    /// `key` as a whole number (a written fraction is cut towards nought, as the game's
    /// integer fields take it).
    pub fn integer(&self, key: &str) -> Option<Result<i64, String>> {
        self.number(key).map(|n| n.map(|v| v.trunc() as i64))
    }

    /// The lines of a block key, `None` when not said as a block.
    pub fn block(&self, key: &str) -> Option<&[String]> {
        match &self.get(key)?.value {
            SamValue::Block(lines) => Some(lines),
            SamValue::Word(_) => None,
        }
    }
}

/// An `Info.Shape` picture read as the engine reads it: rows flipped (row 0 is the last row
/// drawn), spaces skipped, the footprint the box the picture is drawn in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Row-major from the flipped row 0.
    pub rows: Vec<String>,
    pub across: u32,
    pub down: u32,
}

/// The characters a shape may hold (the executable's nineteen-row table).
const SHAPE_CHARS: &str = ".*Q@+#D><8624ONESWX";
/// The most cells a shape row or column may hold.
pub const MAX_SHAPE: usize = 20;

/// Parses a shape block, or says why the engine would refuse it.
pub fn parse_shape(lines: &[String]) -> Result<Shape, String> {
    if lines.len() > MAX_SHAPE {
        return Err(format!("{} rows, more than {MAX_SHAPE}", lines.len()));
    }
    let mut rows = Vec::with_capacity(lines.len());
    for line in lines.iter().rev() {
        let row: String = line.chars().filter(|c| *c != ' ').collect();
        if let Some(bad) = row.chars().find(|c| !SHAPE_CHARS.contains(*c)) {
            return Err(format!("{bad:?} is not a footprint cell"));
        }
        if row.chars().count() > MAX_SHAPE {
            return Err(format!("a row of {} cells, more than {MAX_SHAPE}", row.chars().count()));
        }
        rows.push(row);
    }
    let across = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0) as u32;
    Ok(Shape { down: rows.len() as u32, across, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_field_keys_take_one_value_each_and_the_rest_is_prose() {
        let sam =
            Sam::parse("PeepTypes[0].PreferredExcitement.StartingCash.BoredomThreshold\t80\t 300\t40 extra words\n");
        assert_eq!(sam.word("PeepTypes[0].PreferredExcitement"), Some("80"));
        assert_eq!(sam.word("PeepTypes[0].StartingCash"), Some("300"));
        assert_eq!(sam.word("peeptypes[0].boredomthreshold"), Some("40"));
        assert_eq!(sam.len(), 3);
        let prose = Sam::parse("Info.IsChoosable 1 People CAN use this\nPeepInfo.ExitLevel  120  starting value\n");
        assert_eq!(prose.integer("Info.IsChoosable"), Some(Ok(1)));
        assert_eq!(prose.integer("PeepInfo.ExitLevel"), Some(Ok(120)));
    }

    #[test]
    fn comments_quotes_and_not_said_versus_said_nought() {
        let sam =
            Sam::parse("# a comment\nInfo.Name \"Belly # Bounce\" # trailing\nInfo.Id 0\nUsageInfo.HungerEffect 0\n");
        assert_eq!(sam.word("Info.Name"), Some("Belly # Bounce"));
        assert_eq!(sam.integer("Info.Id"), Some(Ok(0)));
        assert_eq!(sam.integer("Info.NumSimultAnims"), None);
        assert!(matches!(Sam::parse("Info.Id one\n").integer("Info.Id"), Some(Err(_))));
    }

    #[test]
    fn item_file_layers_over_category_key_by_key() {
        let category = Sam::parse("Info.IsChoosable 0\nInfo.HasQueue 1\nInfo.NumSimultAnims 1\n");
        let item = Sam::parse("Info.IsChoosable 1 People CAN use this\nInfo.Id 1402\n");
        let layered = item.over(&category);
        assert_eq!(layered.integer("Info.IsChoosable"), Some(Ok(1)));
        assert_eq!(layered.integer("Info.HasQueue"), Some(Ok(1)));
        assert_eq!(layered.integer("Info.Id"), Some(Ok(1402)));
        assert_eq!(layered.integer("Info.NumSimultAnims"), Some(Ok(1)));
    }

    #[test]
    fn later_line_wins_and_short_lines_warn() {
        let sam = Sam::parse("Upgrades[0].InitCapacity 6\nUpgrades[0].InitCapacity 5\nA.B.C 1\n");
        assert_eq!(sam.integer("Upgrades[0].InitCapacity"), Some(Ok(5)));
        assert_eq!(sam.word("A.B"), Some("1"));
        assert_eq!(sam.get("A.C"), None);
        assert_eq!(sam.warnings.len(), 1);
    }

    #[test]
    fn shape_blocks_are_flipped_boxes() {
        let sam = Sam::parse("Info.Shape\n---\n**\n*2\n---\nInfo.Id 1405\n");
        let shape = parse_shape(sam.block("Info.Shape").unwrap()).unwrap();
        assert_eq!(shape.rows, vec!["*2".to_string(), "**".to_string()]);
        assert_eq!((shape.across, shape.down), (2, 2));
        assert_eq!(sam.integer("Info.Id"), Some(Ok(1405)));
        let dotted = parse_shape(&["*.*.".into(), "* * ".into()]).unwrap();
        assert_eq!((dotted.across, dotted.down), (4, 2));
        assert!(parse_shape(&["*z".into()]).is_err());
        let unclosed = Sam::parse("Info.Shape\n---\n***\n");
        assert_eq!(unclosed.block("Info.Shape").map(|b| b.len()), Some(1));
        assert_eq!(unclosed.warnings.len(), 1);
    }
}
