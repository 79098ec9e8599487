//! Opening names. A small ECO table (`openings.tsv`) is indexed by the
//! Zobrist hash of each line's final position, so a position reached by any
//! move order is named. The same table tells which opening families a
//! sentence mentions, and which side chooses each family, so the memory
//! write policy can see that "plays the Caro-Kann now" replaces "always
//! plays the Sicilian" (both are Black's answer to 1.e4).

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Serialize;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use super::Game;

mod table;

pub use table::BookError;

const TABLE: &str = include_str!("openings.tsv");
/// Lichess's opening table (CC0), for the families `TABLE` names: their
/// positions by many more move orders, under Lichess's names.
const MORE_POSITIONS: &str = include_str!("openings_lichess.tsv");
/// Openings are named from their first moves; later positions are not looked up.
const MAX_BOOK_PLIES: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Opening {
    pub eco: String,
    /// "Family: Variation", or just the family.
    pub name: String,
}

impl Opening {
    /// "Sicilian Defense" of "Sicilian Defense: Najdorf Variation".
    pub fn family(&self) -> &str {
        self.name.split_once(": ").map_or(&self.name, |(family, _)| family)
    }
}

/// An opening family and the choice it stands for: which side picks it, in
/// answer to (or as) which first move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    pub name: String,
    pub chooser: Color,
    pub first_move: String,
}

impl Family {
    /// Two families with the same slot are alternatives to each other.
    pub fn slot(&self) -> (Color, &str) {
        (self.chooser, &self.first_move)
    }
}

/// One family named in a text.
struct Mention<'a> {
    at: usize,
    family: &'a Family,
    phrase: String,
}

/// Words that make a short opening name an opening: "the London", "London System".
const DETERMINERS: [&str; 13] = [
    "the",
    "my",
    "your",
    "his",
    "her",
    "their",
    "our",
    "usual",
    "a",
    "an",
    "this",
    "that",
    "favourite",
];
const OPENING_WORDS: [&str; 10] = [
    "opening",
    "opened",
    "defen",
    "gambit",
    "system",
    "variation",
    "repertoire",
    "attack",
    "line",
    "setup",
];
/// Short names that are everyday words too.
const COMMON_WORDS: [&str; 14] = [
    "english", "french", "dutch", "italian", "polish", "danish", "london", "vienna", "catalan", "scotch", "bird",
    "modern", "center", "indian",
];
const PIECES: [&str; 6] = ["bishops", "knights", "kings", "queens", "rooks", "pawns"];

pub struct OpeningBook {
    openings: Vec<Opening>,
    by_position: HashMap<u64, usize>,
    families: Vec<Family>,
    /// Normalised phrase -> family index, longest phrase first.
    aliases: Vec<(String, usize)>,
}

static BOOK: LazyLock<OpeningBook> = LazyLock::new(|| {
    let mut book = OpeningBook::parse(TABLE).expect("the bundled openings.tsv is valid (tested)");
    book.add_positions(MORE_POSITIONS)
        .expect("the bundled openings_lichess.tsv is valid (tested)");
    book
});

/// The bundled opening table.
pub fn book() -> &'static OpeningBook {
    &BOOK
}

/// A position's Zobrist hash (Polyglot-compatible) as 16 hex digits.
pub fn position_key(pos: &Chess) -> String {
    let Zobrist64(hash) = pos.zobrist_hash(EnPassantMode::Legal);
    format!("{hash:016x}")
}

impl OpeningBook {
    /// The most specific named opening the game passed through.
    pub fn classify(&self, game: &Game) -> Option<&Opening> {
        self.passed(game).pop()
    }

    /// The most specific family `side` chose in this game: as Black after
    /// `1. e4 c5 2. Nf3 d6 3. Bc4` that is the Sicilian, whatever White
    /// played next.
    pub fn chosen_by(&self, game: &Game, side: Color) -> Option<&Family> {
        self.passed(game)
            .into_iter()
            .filter_map(|o| self.family(o.family()))
            .rfind(|f| f.chooser == side)
    }

    /// The named openings along the game's first moves, in order.
    fn passed(&self, game: &Game) -> Vec<&Opening> {
        // A game set up from a book position is in that opening too.
        let mut pos = game.start_position().clone();
        let mut found: Vec<&Opening> = self.at(&pos).into_iter().collect();
        for played in game.moves().iter().take(MAX_BOOK_PLIES) {
            let Some(m) = played.uci.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else {
                break;
            };
            pos.play_unchecked(m);
            found.extend(self.at(&pos));
        }
        found
    }

    /// The named opening of exactly this position, if the book has it.
    fn at(&self, pos: &Chess) -> Option<&Opening> {
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        self.by_position.get(&key).map(|&i| &self.openings[i])
    }

    /// The opening families a sentence names, in order of first mention.
    pub fn mentioned(&self, text: &str) -> Vec<&Family> {
        self.mentions(text).into_iter().map(|m| m.family).collect()
    }

    /// The families a sentence names as openings: a short name that is
    /// also a common word ("the London" but not "in London", "my Italian"
    /// but not "Italian food", never "bishops" for the Bishop's Opening)
    /// counts only with a determiner before it, an opening word after it,
    /// or talk of openings around it.
    pub fn named(&self, text: &str) -> Vec<&Family> {
        let words = format!(" {} ", normalise(text));
        let context = OPENING_WORDS.iter().any(|w| words.contains(&format!(" {w}")));
        self.mentions(text)
            .into_iter()
            .filter(|m| {
                let full = words.contains(&format!(" {} ", normalise(&m.family.name)));
                let distinctive = m.phrase.contains(' ') || !COMMON_WORDS.contains(&m.phrase.as_str());
                let before = words[..m.at + 1].split_whitespace().last().unwrap_or("");
                let after = words[m.at + m.phrase.len() + 1..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                let pointed = DETERMINERS.contains(&before) || OPENING_WORDS.iter().any(|w| after.starts_with(w));
                let piece = PIECES.contains(&m.phrase.as_str());
                full || (!piece && (distinctive || pointed || context))
            })
            .map(|m| m.family)
            .collect()
    }

    /// Each family named, where (in the normalised, space-padded text) and by which phrase.
    fn mentions(&self, text: &str) -> Vec<Mention<'_>> {
        let mut text = format!(" {} ", normalise(text));
        let mut found: Vec<(usize, usize, &str)> = Vec::new();
        for (phrase, family) in &self.aliases {
            let needle = format!(" {phrase} ");
            while let Some(at) = text.find(&needle) {
                if !found.iter().any(|(_, f, _)| f == family) {
                    found.push((at, *family, phrase.as_str()));
                }
                // Blank the phrase so "semi slav" is not also read as "slav".
                text.replace_range(at + 1..at + needle.len() - 1, &" ".repeat(needle.len() - 2));
            }
        }
        found.sort();
        found
            .into_iter()
            .map(|(at, f, phrase)| Mention {
                at,
                family: &self.families[f],
                phrase: phrase.to_string(),
            })
            .collect()
    }

    /// The family of this name, if the book has it.
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    /// Every family's name, in the table's order.
    pub fn family_names(&self) -> impl Iterator<Item = &str> {
        self.families.iter().map(|f| f.name.as_str())
    }

    pub fn len(&self) -> usize {
        self.openings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }
}

/// The positions (keys) along the first line of moves a text gives from the
/// start ("As White, Ann opened with 1. e4 e5 2. Nf3 Nc6 3. Bc4."): move
/// numbers and words are skipped, the line ends at the first move that is
/// not legal. Empty when the text names no legal first move.
pub fn line_keys(text: &str) -> Vec<String> {
    let mut pos = Chess::default();
    let mut keys = Vec::new();
    for token in text.split_whitespace().take(200) {
        let token = token.trim_matches(|c: char| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')' | '"'));
        let Ok(san) = token.trim_end_matches(['+', '#']).parse::<San>() else {
            continue;
        };
        match san.to_move(&pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                keys.push(position_key(&pos));
            }
            Err(_) if keys.is_empty() => continue,
            Err(_) => break,
        }
        if keys.len() >= MAX_BOOK_PLIES {
            break;
        }
    }
    keys
}

/// Lower case, plain letters and single spaces: "Grünfeld" and "grunfeld",
/// "Caro-Kann" and "caro kann", "Queen's" and "queens" all match.
fn normalise(text: &str) -> String {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| !matches!(c, '\'' | '’'))
        .map(|c| match c {
            'ü' | 'ú' => 'u',
            'é' | 'è' => 'e',
            c if c.is_alphanumeric() => c,
            _ => ' ',
        })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(sans: &str) -> Game {
        let mut g = Game::new(None).unwrap();
        for s in sans.split_whitespace() {
            let m = g.parse(s).unwrap();
            g.play(m);
        }
        g
    }

    #[test]
    fn a_line_in_words_is_followed_from_the_start() {
        let italian = line_keys("As White, Ann opened with 1. e4 e5 2. Nf3 Nc6 3. Bc4.");
        assert_eq!(italian.len(), 5);
        let najdorf =
            line_keys("As Black, Ann answered 1. e4 with the Sicilian Najdorf: 1... c5 2. Nf3 d6 3. d4 cxd4.");
        assert_eq!(najdorf.len(), 6);
        assert_eq!(italian[0], najdorf[0], "both pass through 1. e4");
        assert!(line_keys("Ann lost her queen to a knight fork on move 18.").is_empty());
        assert!(line_keys("Ann played 1... Ra3 2. Rd8# from a set position.").is_empty());
    }

    #[test]
    fn a_family_is_named_by_more_move_orders_than_its_main_line() {
        let kid = game("d4 Nf6 c4 g6 Nc3 Bg7");
        assert_eq!(book().classify(&kid).unwrap().family(), "King's Indian Defense");
        assert_eq!(
            book().chosen_by(&kid, Color::Black).unwrap().name,
            "King's Indian Defense"
        );
    }

    #[test]
    fn names_the_most_specific_opening_and_sees_transpositions() {
        let najdorf = game("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3");
        assert_eq!(book().classify(&najdorf).unwrap().eco, "B90");
        // 1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 reached through 1.c4 first.
        let nimzo = game("c4 e6 d4 Nf6 Nc3 Bb4");
        assert_eq!(book().classify(&nimzo).unwrap().name, "Nimzo-Indian Defense");
        assert!(book().classify(&game("")).is_none());
    }

    #[test]
    fn finds_families_named_in_a_sentence() {
        let names = |t: &str| -> Vec<String> { book().mentioned(t).iter().map(|f| f.name.clone()).collect() };
        assert_eq!(names("Ann always plays the Sicilian"), ["Sicilian Defense"]);
        assert_eq!(
            names("switched to the caro kann and the Najdorf"),
            ["Caro-Kann Defense", "Sicilian Defense"]
        );
        assert_eq!(names("loves the Semi-Slav"), ["Semi-Slav Defense"]);
        assert_eq!(
            names("plays the queens gambit, never the Grunfeld"),
            ["Queen's Gambit", "Grünfeld Defense"]
        );
        assert!(names("a Yugoslav attack? no, a french fry").len() == 1);
    }

    #[test]
    fn families_know_who_chooses_them() {
        let slot = |t: &str| book().mentioned(t)[0].slot();
        assert_eq!(slot("Sicilian"), (Color::Black, "e4"));
        assert_eq!(slot("Caro-Kann"), (Color::Black, "e4"));
        assert_eq!(slot("Ruy Lopez"), (Color::White, "e4"));
        assert_eq!(slot("London"), (Color::White, "d4"));
        assert_eq!(slot("King's Indian Defense"), (Color::Black, "d4"));
    }

    #[test]
    fn tells_the_family_each_side_chose() {
        let g = game("e4 c5 Nf3 d6 Bb5+");
        let chosen = |side| book().chosen_by(&g, side).map(|f| f.name.as_str());
        assert_eq!(chosen(Color::Black), Some("Sicilian Defense"));
        assert_eq!(chosen(Color::White), None, "White chose no family of its own here");
        let italian = game("e4 e5 Nf3 Nc6 Bc4 Bc5");
        assert_eq!(
            book().chosen_by(&italian, Color::White).map(|f| f.name.as_str()),
            Some("Italian Game")
        );
    }

    #[test]
    fn position_keys_are_polyglot_hashes() {
        assert_eq!(position_key(&Chess::default()), "463b96181691fc9c");
    }
}
