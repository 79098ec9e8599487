//! The chess-club concepts memories and situations are matched by: motifs,
//! endgame kinds, phases, habits, results, and opening families. One closed
//! vocabulary serves both sides: a memory is tagged from its words (and the
//! board it was made at), a situation names the concepts it shows, and the
//! subconscious recalls by the overlap. Each concept also has a phrase, a
//! sentence a search can run by (embedded once with the situation vocabulary).

use super::memory_type::MemoryType;
use crate::chess::openings;

mod vocabulary;

pub use vocabulary::{CONCEPTS, Concept};

/// The concept of a tag (opening families have none: see `opening_tag`).
pub fn concept(tag: &str) -> Option<&'static Concept> {
    CONCEPTS.iter().find(|c| c.tag == tag)
}

/// An opening family's tag: "opening:sicilian-defense".
pub fn opening_tag(family: &str) -> String {
    let slug: Vec<String> = family
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!("opening:{}", slug.join("-"))
}

/// The concepts a text names, in the vocabulary's order, opening families
/// last: "Ann lost her queen to a knight fork" -> fork, queen, knight.
pub fn tags_in(text: &str) -> Vec<String> {
    let words = format!(" {} ", normalise(text));
    let mut tags: Vec<String> = CONCEPTS
        .iter()
        .filter(|c| c.words.iter().any(|w| names(&words, w)))
        .map(|c| c.tag.to_string())
        .collect();
    for family in openings::book().named(text) {
        push_unique(&mut tags, opening_tag(&family.name));
    }
    tags
}

/// A memory's tags: from its words, its type (a game's record is about a
/// result, a streak about results in a row, an emotion about a mood, what
/// the player said of themselves about their life), and, for a memory
/// about the game, the opening of the board it was made at, if any.
pub fn memory_tags(content: &str, memory_type: MemoryType, opening: Option<&str>) -> Vec<String> {
    let mut tags = tags_in(content);
    let by_type: &[&str] = match memory_type {
        MemoryType::GameContext => &["result"],
        MemoryType::Streak => &["streak", "result"],
        MemoryType::Emotional => &["mood"],
        MemoryType::SharedMoment => &["result"],
        MemoryType::PlayerObservation | MemoryType::PersonalNote => &["personal"],
        _ => &[],
    };
    // A remark made during the opening is not about the opening.
    let about_the_game = memory_type.about_the_game();
    // One that names an opening itself ("loves the Italian") is about that one.
    let names_one = tags.iter().any(|t| t.starts_with("opening:"));
    let opening = opening.filter(|_| about_the_game && !names_one);
    for tag in by_type {
        push_unique(&mut tags, tag.to_string());
    }
    if let Some(name) = opening {
        let family = name.split_once(": ").map_or(name, |(f, _)| f);
        push_unique(&mut tags, opening_tag(family));
        push_unique(&mut tags, "opening".to_string());
    }
    tags
}

fn push_unique(tags: &mut Vec<String>, tag: String) {
    if !tags.contains(&tag) {
        tags.push(tag);
    }
}

/// Whether the padded, normalised `words` contain `word` on word
/// boundaries ("pin" is not in "pinch"; "fork*" is in "forked").
fn names(words: &str, word: &str) -> bool {
    match word.strip_suffix('*') {
        Some(stem) => words.contains(&format!(" {stem}")),
        None => words.contains(&format!(" {word} ")),
    }
}

/// Lower case, letters and digits only, one space between words.
fn normalise(text: &str) -> String {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| !matches!(c, '\'' | '’'))
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every phrase a situation can be searched by, for the vocabulary embedded at start.
pub fn phrases() -> impl Iterator<Item = &'static str> {
    CONCEPTS.iter().map(|c| c.phrase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(text: &str) -> Vec<String> {
        tags_in(text)
    }

    #[test]
    fn memories_are_tagged_by_the_concepts_they_name() {
        assert_eq!(
            tags("Ann lost her queen to a knight fork on move 18."),
            ["fork", "knight", "queen"]
        );
        assert!(
            tags("Ann never makes luft for her king; I mated her on the back rank once.")
                .starts_with(&["back_rank".to_string(), "mate".to_string()])
        );
        assert!(
            tags("Bob saved a lost endgame by steering into opposite-coloured bishops.")
                .contains(&"opposite_bishops".to_string())
        );
        assert!(
            tags("Bob trades queens whenever he can and is happiest in a queenless middlegame.")
                .contains(&"queen_trade".to_string())
        );
        assert!(
            tags("Chen leaves his king in the centre and castles late, if at all.")
                .contains(&"king_in_centre".to_string())
        );
        let sicilian = tags("As Black, Ann answered 1. e4 with the Sicilian Najdorf.");
        assert!(sicilian.contains(&"as_black".to_string()), "{sicilian:?}");
        assert!(
            sicilian.contains(&"opening:sicilian-defense".to_string()),
            "{sicilian:?}"
        );
        assert!(tags("Chen walked into a pin against his king.").contains(&"pin".to_string()));
    }

    #[test]
    fn a_remark_made_in_an_opening_is_not_about_it() {
        let said = memory_tags(
            "Ann told me: \"long shift tonight\"",
            MemoryType::PlayerObservation,
            Some("Italian Game"),
        );
        assert_eq!(said, ["personal"]);
        let played = memory_tags("Ann sacrificed early.", MemoryType::Pattern, Some("Italian Game"));
        assert!(played.contains(&"opening:italian-game".to_string()), "{played:?}");
    }

    #[test]
    fn a_memorys_type_says_what_it_is_about() {
        let said = memory_tags("Ann told me: \"I teach maths\"", MemoryType::PlayerObservation, None);
        assert!(said.contains(&"personal".to_string()), "{said:?}");
        let game = memory_tags("On 2 May, Ann played White and lost.", MemoryType::GameContext, None);
        assert!(game.contains(&"result".to_string()), "{game:?}");
        let run = memory_tags("Ann has lost 2 matches in a row against me.", MemoryType::Streak, None);
        assert!(run.starts_with(&["streak".to_string()]), "{run:?}");
    }

    #[test]
    fn words_match_on_their_boundaries_only() {
        assert!(
            tags("She pinched a pawn").iter().all(|t| t != "pin"),
            "{:?}",
            tags("She pinched a pawn")
        );
        assert!(tags("I mated him").contains(&"mate".to_string()));
        assert!(!tags("my classmate taught me").contains(&"mate".to_string()));
        // A remark about her life names no chess concept.
        assert_eq!(
            tags("Ann told me: \"my grandmother taught me chess in Lisbon\""),
            ["personal"]
        );
    }

    #[test]
    fn a_memory_made_at_a_board_carries_its_opening() {
        let t = memory_tags(
            "We played a sharp game.",
            MemoryType::Pattern,
            Some("Sicilian Defense: Najdorf Variation"),
        );
        assert_eq!(t, ["opening:sicilian-defense", "opening"]);
        assert_eq!(opening_tag("King's Gambit"), "opening:kings-gambit");
    }
}
