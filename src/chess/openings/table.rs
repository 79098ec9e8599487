//! Reading the opening tables: the book's own lines (its families, who
//! chooses each, the names a sentence is read by) and more positions of
//! those families from Lichess's table.

use std::collections::HashMap;

use shakmaty::san::San;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use super::{Family, Opening, OpeningBook, normalise};

#[derive(Debug, thiserror::Error)]
#[error("openings.tsv line {line}: {message}")]
pub struct BookError {
    line: usize,
    message: String,
}

impl OpeningBook {
    pub fn parse(table: &str) -> Result<OpeningBook, BookError> {
        let mut book = OpeningBook {
            openings: Vec::new(),
            by_position: HashMap::new(),
            families: Vec::new(),
            aliases: Vec::new(),
        };
        let mut variations: Vec<(String, usize)> = Vec::new();
        for row in rows(table) {
            let Row {
                eco, name, pos, sans, ..
            } = row?;
            let (family_name, variation) = match name.split_once(": ") {
                Some((f, v)) => (f, Some(v)),
                None => (name, None),
            };
            let family = book.family_for(family_name, &sans);
            if let Some(v) = variation {
                variations.push((normalise(v.trim_end_matches(" Variation")), family));
            }
            book.by_position.insert(
                pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
                book.openings.len(),
            );
            book.openings.push(Opening {
                eco: eco.to_string(),
                name: name.to_string(),
            });
        }
        book.add_variation_aliases(variations);
        book.aliases.sort_by_key(|(phrase, _)| std::cmp::Reverse(phrase.len()));
        Ok(book)
    }

    /// More named positions of the families the book has: no new family,
    /// no new name a sentence is read by, and a position it names already
    /// keeps its name.
    pub fn add_positions(&mut self, table: &str) -> Result<(), BookError> {
        for row in rows(table) {
            let Row {
                line, eco, name, pos, ..
            } = row?;
            let opening = Opening {
                eco: eco.to_string(),
                name: name.to_string(),
            };
            if self.family(opening.family()).is_none() {
                return Err(BookError {
                    line,
                    message: format!("{} is no family of the book", opening.family()),
                });
            }
            let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
            if !self.by_position.contains_key(&key) {
                self.by_position.insert(key, self.openings.len());
                self.openings.push(opening);
            }
        }
        Ok(())
    }

    /// The family's index, created from its first (shortest) line if new.
    fn family_for(&mut self, name: &str, sans: &[String]) -> usize {
        if let Some(i) = self.families.iter().position(|f| f.name == name) {
            return i;
        }
        // The side that made the line's last move is the side that chose it.
        let chooser = if sans.len() % 2 == 1 {
            Color::White
        } else {
            Color::Black
        };
        self.families.push(Family {
            name: name.to_string(),
            chooser,
            first_move: sans[0].clone(),
        });
        let short = ["Defense", "Defence", "Opening", "Game", "System"]
            .iter()
            .fold(name, |n, suffix| n.trim_end_matches(suffix).trim_end());
        self.aliases.push((normalise(short), self.families.len() - 1));
        self.families.len() - 1
    }

    /// Variation names ("Najdorf") point to their family when they are
    /// distinctive: unique to one family and not a family's own name.
    fn add_variation_aliases(&mut self, variations: Vec<(String, usize)>) {
        const GENERIC: [&str; 3] = ["main line", "modern variations", "closed"];
        for (phrase, family) in &variations {
            let unique = variations.iter().all(|(p, f)| p != phrase || f == family);
            let taken = self.aliases.iter().any(|(p, _)| p == phrase);
            if unique && !taken && phrase.len() >= 5 && !GENERIC.contains(&phrase.as_str()) {
                self.aliases.push((phrase.clone(), *family));
            }
        }
    }
}

/// One line of a table: its ECO code, its name and the position its moves reach.
struct Row<'a> {
    line: usize,
    eco: &'a str,
    name: &'a str,
    pos: Chess,
    sans: Vec<String>,
}

/// The table's lines (blank ones and `#` comments skipped), each read or
/// failed with its line number.
fn rows(table: &str) -> impl Iterator<Item = Result<Row<'_>, BookError>> {
    table
        .lines()
        .enumerate()
        .filter(|(_, line)| !(line.trim().is_empty() || line.starts_with('#')))
        .map(|(i, line)| {
            let fail = |message: String| BookError { line: i + 1, message };
            let mut cols = line.split('\t');
            let (Some(eco), Some(name), Some(moves)) = (cols.next(), cols.next(), cols.next()) else {
                return Err(fail("expected ECO, name and moves separated by tabs".into()));
            };
            let (pos, sans) = play_line(moves).map_err(fail)?;
            Ok(Row {
                line: i + 1,
                eco,
                name,
                pos,
                sans,
            })
        })
}

fn play_line(moves: &str) -> Result<(Chess, Vec<String>), String> {
    let mut pos = Chess::default();
    let mut sans = Vec::new();
    for token in moves.split_whitespace() {
        let san: San = token
            .trim_end_matches(['+', '#'])
            .parse()
            .map_err(|_| format!("bad SAN '{token}'"))?;
        let m = san
            .to_move(&pos)
            .map_err(|e| format!("'{token}' is not legal here: {e}"))?;
        pos.play_unchecked(m);
        sans.push(token.to_string());
    }
    if sans.is_empty() {
        return Err("no moves".into());
    }
    Ok((pos, sans))
}

#[cfg(test)]
mod tests {
    use super::super::{MORE_POSITIONS, TABLE};
    use super::*;

    #[test]
    fn every_line_of_the_bundled_table_is_legal() {
        let book = OpeningBook::parse(TABLE).unwrap();
        assert!(book.len() > 90, "{}", book.len());
    }

    #[test]
    fn every_line_of_lichess_table_is_legal_and_of_a_known_family() {
        let mut book = OpeningBook::parse(TABLE).unwrap();
        let before = book.len();
        book.add_positions(MORE_POSITIONS).unwrap();
        assert!(book.len() > before + 2000, "{before} -> {}", book.len());
        let unknown = book.add_positions("E60\tMade-up Defense\td4 Nf6 c4 g6");
        assert!(unknown.is_err());
    }

    #[test]
    fn a_bad_line_is_reported_with_its_number() {
        let err = OpeningBook::parse("B20\tSicilian Defense\te4 c5\nB99\tNonsense\te4 Ke7\n")
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("openings.tsv line 2:"), "{err}");
    }
}
