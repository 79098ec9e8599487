//! The chess-club concepts memories and situations are matched by: motifs,
//! endgame kinds, phases, habits, results, and opening families. One closed
//! vocabulary serves both sides: a memory is tagged from its words (and the
//! board it was made at), a situation names the concepts it shows, and the
//! subconscious recalls by the overlap. Each concept also has a phrase, a
//! sentence a search can run by (embedded once with the situation vocabulary).

use super::memory_type::MemoryType;
use crate::chess::openings;

/// One concept: its tag, the sentence it is searched by, and the words
/// that name it in a memory ("word*" matches any word starting so).
pub struct Concept {
    pub tag: &'static str,
    pub phrase: &'static str,
    words: &'static [&'static str],
}

const fn c(tag: &'static str, phrase: &'static str, words: &'static [&'static str]) -> Concept {
    Concept { tag, phrase, words }
}

/// Every concept but the opening families (`opening_tag`).
pub const CONCEPTS: &[Concept] = &[
    c("fork", "A fork: one piece attacks two at once.", &["fork*"]),
    c(
        "pin",
        "A pin against the king or a bigger piece.",
        &["pin", "pins", "pinned", "pinning"],
    ),
    c("skewer", "A skewer along a line through the king.", &["skewer*"]),
    c(
        "discovered_attack",
        "A discovered attack.",
        &["discovered", "discovery"],
    ),
    c(
        "hanging_piece",
        "A piece left hanging and lost for nothing.",
        &[
            "hang*",
            "hung",
            "en prise",
            "for nothing",
            "undefended",
            "unprotected",
            "loose piece*",
        ],
    ),
    c(
        "back_rank",
        "A back-rank weakness: the king has no luft.",
        &["back rank*", "luft", "first rank", "eighth rank"],
    ),
    c(
        "mate",
        "Checkmate, or a mating attack on the king.",
        &["mate", "mated", "mates", "mating", "checkmat*"],
    ),
    c("gambit", "A gambit: a pawn given early for the attack.", &["gambit*"]),
    c(
        "sacrifice",
        "A sacrifice: material given up for an attack.",
        &["sacrific*", "sac", "sacs", "gave up", "give up", "gives up"],
    ),
    c(
        "exchange_sacrifice",
        "An exchange sacrifice: a rook given for a minor piece.",
        &[
            "the exchange",
            "exchange sac*",
            "rook for my bishop",
            "rook for my knight",
            "rook for a bishop",
            "rook for a knight",
        ],
    ),
    c(
        "blunder",
        "A blunder, a move that loses material or the game.",
        &[
            "blunder*",
            "oversight",
            "did not see",
            "didnt see",
            "did not notice",
            "does not notice",
        ],
    ),
    c(
        "promotion",
        "A pawn promoted to a queen.",
        &["promot*", "queened", "new queen"],
    ),
    c(
        "queen_trade",
        "Queens traded off the board.",
        &[
            "trade queens",
            "trades queens",
            "trading queens",
            "traded queens",
            "swap queens",
            "swapping queens",
            "swapped queens",
            "queen trade*",
            "queenless",
            "exchange queens",
            "exchanging queens",
            "queens off",
            "trading queens",
        ],
    ),
    c(
        "castling_queenside",
        "Castling queenside and attacking the other king.",
        &["queenside", "queen side", "long castl*"],
    ),
    c(
        "king_in_centre",
        "A king left in the centre, castling late.",
        &[
            "castles late",
            "castle late",
            "castled late",
            "castling late",
            "never castles",
            "uncastled",
            "in the centre",
            "in the center",
        ],
    ),
    c(
        "pawn_storm",
        "A pawn storm against the castled king.",
        &["pawn storm*", "kingside pawns", "throws his pawns", "throws her pawns"],
    ),
    c(
        "outpost",
        "A knight planted on an outpost no pawn can chase away.",
        &["outpost*"],
    ),
    c(
        "pawn_grab",
        "A pawn grabbed with the queen: the poisoned pawn.",
        &["pawn grab*", "grabs pawns", "grabbing pawns", "poisoned pawn", "greedy"],
    ),
    c(
        "minority_attack",
        "A minority attack: queenside pawns pushed against the majority.",
        &["minority attack*", "carlsbad"],
    ),
    c(
        "bishop_pair",
        "The bishop pair: the two bishops kept or given up.",
        &["bishop pair", "two bishops", "pair of bishops"],
    ),
    c(
        "passed_pawn",
        "A passed pawn pushed towards promotion.",
        &["passed pawn*", "passer", "passers"],
    ),
    c("rook_endgame", "A rook endgame.", &["rook endgame*", "rook ending*"]),
    c(
        "pawn_endgame",
        "A king and pawn endgame.",
        &["pawn endgame*", "pawn ending*", "king and pawn*"],
    ),
    c(
        "queen_endgame",
        "A queen endgame.",
        &["queen endgame*", "queen ending*"],
    ),
    c(
        "opposite_bishops",
        "Opposite-coloured bishops in the ending.",
        &[
            "opposite colour*",
            "opposite color*",
            "opposite coloured",
            "opposite colored",
            "opposite bishops",
        ],
    ),
    c(
        "minor_piece_endgame",
        "A minor piece endgame, bishop against knight.",
        &[
            "bishop against knight",
            "knight against bishop",
            "bishop versus knight",
            "bishop vs knight",
            "good knight",
            "bad bishop",
            "minor piece ending*",
            "minor piece endgame*",
        ],
    ),
    c(
        "endgame",
        "The endgame.",
        &["endgame*", "ending", "endings", "endgames"],
    ),
    c("middlegame", "The middlegame.", &["middlegame*", "middle game"]),
    c(
        "opening",
        "The opening: the first moves and the player's repertoire.",
        // Not "opened" or "opens": a bridge, a shop, a door open too.
        &["opening*", "repertoire", "answered 1", "answers 1"],
    ),
    c(
        "thinking_time",
        "How long the player thinks: long thinks, fast moves, time trouble.",
        &[
            "time trouble",
            "time pressure",
            "clock",
            "too fast",
            "very fast",
            "moves fast",
            "moves quickly",
            "long think*",
            "long time",
            "takes long",
            "minutes on",
            "slowly",
            "thinking takes",
            "blitz",
            "flag*",
            "within a few seconds",
        ],
    ),
    c(
        "draw",
        "A draw offered or agreed.",
        &["draw", "draws", "drew", "drawn", "stalemate*"],
    ),
    c("resign", "Resigning a game.", &["resign*"]),
    c(
        "result",
        "The results of our earlier games.",
        &[
            "beat me",
            "beats me",
            "lost to me",
            "loses to me",
            "drew with me",
            "won our",
            "lost our",
            "won the game",
            "lost the game",
            "won against",
            "lost against",
            "last game",
            "our last",
            "last time",
            "losing run",
            "winning run",
            "victory",
            "defeat*",
        ],
    ),
    c(
        "streak",
        "A winning or losing streak between us.",
        &[
            "in a row",
            "streak*",
            "losing run",
            "winning run",
            "straight wins",
            "straight losses",
        ],
    ),
    c(
        "down_material",
        "Being a pawn or a piece down.",
        &[
            "pawn down",
            "piece down",
            "exchange down",
            "down a pawn",
            "down a piece",
        ],
    ),
    c("as_white", "What the player opens with as White.", &["as white"]),
    c("as_black", "How the player answers as Black.", &["as black"]),
    c(
        "personal",
        "What the player told me about their life: work, family, home.",
        &["told me", "my wife", "my husband", "my family", "my job"],
    ),
    c(
        "mood",
        "How the player felt: upset, thrilled, frustrated.",
        &[
            "upset",
            "angry",
            "thrilled",
            "happy",
            "frustrat*",
            "furious",
            "went quiet",
            "excited",
            "nervous",
            "annoyed",
            "proud",
        ],
    ),
    c("knight", "Knights.", &["knight", "knights"]),
    c("bishop", "Bishops.", &["bishop", "bishops"]),
    c("rook", "Rooks.", &["rook", "rooks"]),
    c("queen", "The queen.", &["queen", "queens"]),
];

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
