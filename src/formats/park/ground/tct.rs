//! The theme's texture correspondence table (`<Theme>.tct` in `terrain.wad`, OpenTPW.FileFormats
//! `tct.md`): ASCII text, `#` starts a comment, a line alone is a section heading (`PathTex`,
//! `QueueTex`), a line of an index, whitespace and a file name is a row of the latest section.
//! The names end `.tga`; the files are `.wct`. Hand-written: a dozen lines of text with no
//! grammar a crate would add anything to. Never panics; odd lines are counted, not fatal.

use std::collections::BTreeMap;

/// The section that names path art by a path cell's tile index.
pub const PATH_SECTION: &str = "PathTex";

/// A parsed table: sections by name, each its rows by index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextureTable {
    pub sections: Vec<(String, BTreeMap<u32, String>)>,
    /// Lines that are neither a heading nor a row (a row before any heading, an index that is not
    /// a number), one line each for the warnings.
    pub odd_lines: Vec<String>,
}

impl TextureTable {
    /// Parses the text (bytes that are not UTF-8 are replaced).
    pub fn parse(bytes: &[u8]) -> TextureTable {
        let text = String::from_utf8_lossy(bytes);
        let mut table = TextureTable::default();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(first), second) = (words.next(), words.next()) else { continue };
            match (second, first.parse::<u32>()) {
                (None, _) => table.sections.push((first.to_string(), BTreeMap::new())),
                (Some(name), Ok(index)) => match table.sections.last_mut() {
                    Some((_, rows)) => {
                        rows.insert(index, name.to_string());
                    }
                    None => table.odd_lines.push(format!("line {}: a row before any section", number + 1)),
                },
                (Some(_), Err(_)) => {
                    table.odd_lines.push(format!("line {}: {:?} is not an index and a name", number + 1, line))
                }
            }
        }
        table
    }

    /// Row `index` of `section` (compared without case).
    pub fn row(&self, section: &str, index: u32) -> Option<&str> {
        self.sections
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(section))
            .and_then(|(_, rows)| rows.get(&index))
            .map(String::as_str)
    }
}

/// The `.wct` file name a table name stands for (`jpa_str1.tga` → `jpa_str1.wct`).
pub fn wct_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    format!("{stem}.wct")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_rows_and_comments() {
        let text =
            b"# Texture Correspondance Table\r\n# 14 has be put back as a dummy\r\nPathTex\r\n0\tjpa_squ1.tga\r\n\
                     2\tjpa_str1.tga\r\n13\tjpa_ctr1.tga\r\n14\tjpa_ctr1.tga\r\n\r\nQueueTex\r\n0\tjpa_que4.tga\r\n\
                     #Water\r\n#0\twater.tga\r\n";
        let table = TextureTable::parse(text);
        assert_eq!(table.sections.len(), 2, "{table:?}");
        assert_eq!(table.row(PATH_SECTION, 2), Some("jpa_str1.tga"));
        assert_eq!(table.row("pathtex", 14), Some("jpa_ctr1.tga"));
        assert_eq!(table.row(PATH_SECTION, 1), None);
        assert_eq!(table.row("QueueTex", 0), Some("jpa_que4.tga"));
        assert_eq!(table.row("Water", 0), None);
        assert!(table.odd_lines.is_empty());
        assert_eq!(wct_name("jpa_str1.tga"), "jpa_str1.wct");
        assert_eq!(wct_name("dark"), "dark.wct");
    }

    #[test]
    fn odd_lines_are_counted_not_fatal() {
        let table = TextureTable::parse(b"0 before.tga\nPathTex\nx y\n3 a.tga trailing words\n\xff\xfe\n");
        assert_eq!(table.odd_lines.len(), 2, "{:?}", table.odd_lines);
        assert_eq!(table.row(PATH_SECTION, 3), Some("a.tga"));
        // A lone non-UTF-8 word is a heading, harmlessly.
        assert_eq!(table.sections.len(), 2);
    }
}
