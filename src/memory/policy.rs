//! The write policy: what a new memory does to an older one of the same
//! player. Cosine similarity alone cannot tell "loves the Sicilian" from
//! "hates the Sicilian" (0.95 with MiniLM) nor two different games from one
//! (0.99), so a near-duplicate must also agree on the facts that matter:
//! which opening for which side, which sentiment, which figures.

use std::collections::BTreeSet;

use super::model::{Memory, MemoryType};
use crate::chess::openings;
use crate::config::MemoryConfig;

/// Similarity at which two texts say the same thing even about a named subject.
const NEAR_IDENTICAL: f32 = 0.97;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Says the same thing: reinforce the older one.
    Duplicate,
    /// Says something else about the same subject: the newer supersedes it.
    Contradicts,
    Unrelated,
}

/// Why two memories disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conflict {
    /// Different openings for the same choice (Black against 1.e4, ...).
    Opening,
    /// "loves" against "hates".
    Sentiment,
    /// "won 3 in a row" against "won 4 in a row".
    Figures,
}

/// Judges `newer` against `older`, whose cosine similarity is `similarity`.
pub fn judge(newer: &Memory, older: &Memory, similarity: f32, config: &MemoryConfig) -> Verdict {
    if newer.player_id.is_none()
        || newer.player_id != older.player_id
        || newer.persona_id != older.persona_id
        || !comparable(newer.memory_type, older.memory_type)
    {
        return Verdict::Unrelated;
    }
    let conflict = conflict(newer, older);
    // Each game is its own event: never merged with another game's.
    if is_event(newer.memory_type) {
        let same_game = newer.related_match_id == older.related_match_id;
        return if same_game && conflict.is_none() && similarity >= config.duplicate_threshold {
            Verdict::Duplicate
        } else {
            Verdict::Unrelated
        };
    }
    let same_subject = subject(newer).is_some() && subject(newer) == subject(older);
    // The agent named the subject: a new value replaces the old unless the
    // words are all but identical.
    let bar = if same_subject {
        NEAR_IDENTICAL
    } else {
        config.duplicate_threshold
    };
    if similarity >= bar && conflict.is_none() {
        return Verdict::Duplicate;
    }
    // A streak is one current state per player: a new one replaces the old.
    let one_state = newer.memory_type == MemoryType::Streak && older.memory_type == MemoryType::Streak;
    let close = similarity >= config.contradiction_threshold;
    // A pinned memory is the player's own word: only they retire it.
    if older.pinned {
        return Verdict::Unrelated;
    }
    match conflict {
        _ if same_subject || one_state => Verdict::Contradicts,
        Some(Conflict::Opening) => Verdict::Contradicts,
        Some(Conflict::Sentiment | Conflict::Figures) if close => Verdict::Contradicts,
        _ => Verdict::Unrelated,
    }
}

/// Traits of the player may be compared across these types; other types
/// only with their own kind.
fn comparable(a: MemoryType, b: MemoryType) -> bool {
    use MemoryType::*;
    let trait_like = |t| matches!(t, PlayerBehavior | PlayerObservation | Pattern);
    a == b || (trait_like(a) && trait_like(b))
}

fn is_event(t: MemoryType) -> bool {
    matches!(
        t,
        MemoryType::GameContext | MemoryType::Emotional | MemoryType::SharedMoment
    )
}

/// An explicit subject the agent gave in the memory's metadata.
fn subject(m: &Memory) -> Option<&str> {
    m.metadata
        .get("subject")
        .and_then(|s| s.as_str())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn conflict(newer: &Memory, older: &Memory) -> Option<Conflict> {
    let (a, b) = (newer.content.as_str(), older.content.as_str());
    let (sa, sb) = (sentiment(a), sentiment(b));
    // Fearing two openings is no contradiction; playing two for one choice is.
    if sa >= 0 && sb >= 0 && openings_conflict(newer, older) {
        return Some(Conflict::Opening);
    }
    if sentiments_clash(sa, sb) {
        return Some(Conflict::Sentiment);
    }
    let (fa, fb) = (figures(a), figures(b));
    if !fa.is_empty() && !fb.is_empty() && fa != fb {
        return Some(Conflict::Figures);
    }
    None
}

/// True when both name openings for the same choice, but not the same ones.
fn openings_conflict(a: &Memory, b: &Memory) -> bool {
    let (fa, fb) = (chosen(a), chosen(b));
    fa.iter().any(|x| {
        let in_slot = |list: &[&openings::Family]| -> BTreeSet<String> {
            list.iter()
                .filter(|f| f.slot() == x.slot())
                .map(|f| f.name.clone())
                .collect()
        };
        let other = in_slot(&fb);
        !other.is_empty() && other != in_slot(&fa)
    })
}

/// The openings a memory names as its player's choices: named as openings,
/// not words that share a name ("gives up a bishop" is no Bishop's
/// Opening), and of the side it is about when its tags say one ("W: 1.c4,
/// a reversed Sicilian" chooses no Sicilian).
fn chosen(m: &Memory) -> Vec<&'static openings::Family> {
    let has = |tag: &str| m.tags.iter().any(|t| t == tag);
    let side = match (has("as_white"), has("as_black")) {
        (true, false) => Some(shakmaty::Color::White),
        (false, true) => Some(shakmaty::Color::Black),
        _ => None,
    };
    openings::book()
        .named(&m.content)
        .into_iter()
        .filter(|f| side.is_none_or(|c| f.chooser == c))
        .collect()
}

const POSITIVE: [&str; 16] = [
    "love",
    "loves",
    "loved",
    "like",
    "likes",
    "liked",
    "enjoy",
    "enjoys",
    "favorite",
    "favourite",
    "prefer",
    "prefers",
    "always",
    "adores",
    "fond",
    "keen",
];
const NEGATIVE: [&str; 11] = [
    "hate", "hates", "hated", "dislike", "dislikes", "avoid", "avoids", "afraid", "fears", "scared", "stopped",
];
/// Words that turn the next few words around ("does not like").
const NEGATORS: [&str; 10] = [
    "not", "no", "never", "doesnt", "dont", "didnt", "isnt", "wont", "cant", "quit",
];
const NEGATION_REACH: usize = 3;

/// +1, -1 or 0: the sentence's leaning, from a small lexicon with negation.
/// A negator with no sentiment word after it ("never resigns") leans -1.
fn sentiment(text: &str) -> i32 {
    let (mut score, mut reach) = (0i32, 0usize);
    for word in words(text) {
        let w = word.as_str();
        let sign = if POSITIVE.contains(&w) {
            1
        } else if NEGATIVE.contains(&w) {
            -1
        } else {
            0
        };
        if NEGATORS.contains(&w) {
            if reach > 0 {
                score -= 1;
            }
            reach = NEGATION_REACH;
            continue;
        }
        if sign != 0 {
            score += if reach > 0 { -sign } else { sign };
            reach = 0;
        } else if reach > 0 {
            reach -= 1;
            if reach == 0 {
                score -= 1;
            }
        }
    }
    if reach > 0 {
        score -= 1;
    }
    score.signum()
}

/// Opposite leanings, or a negation against a plain statement
/// ("likes blitz" / "no longer likes blitz", "resigns early" / "never resigns").
fn sentiments_clash(a: i32, b: i32) -> bool {
    a != b && a.min(b) < 0
}

const CALENDAR: [&str; 19] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Numbers, days and months: "3 in a row" vs "4 in a row", "on Tuesdays" vs
/// "on Thursdays" are different facts however alike the sentences are.
fn figures(text: &str) -> BTreeSet<String> {
    let text = without_move_numbers(text);
    words(&text)
        .map(|w| w.trim_end_matches('s').to_string())
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()) || CALENDAR.contains(&w.as_str()))
        .collect()
}

/// The text without the numbers of its moves ("1.e4 e5 2.Nf3", "3...Bg7",
/// "1. d4"): two lines of moves are not two figures. A number ending a
/// sentence ("lost 5. Then") stays.
fn without_move_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if starts_number {
            let mut j = i;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let mut k = j;
            while k < chars.len() && chars[k] == '.' {
                k += 1;
            }
            let after = chars[k..].iter().skip_while(|c| **c == ' ').take(3).collect::<String>();
            if k > j && is_move_start(&after) {
                i = k;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Whether a text starts like a move in SAN: "e4", "exd5", "Nf3", "O-O".
fn is_move_start(s: &str) -> bool {
    let mut c = s.chars();
    matches!(
        (c.next(), c.next()),
        (Some('a'..='h'), Some('1'..='8' | 'x'))
            | (Some('K' | 'Q' | 'R' | 'B' | 'N'), Some('a'..='h' | '1'..='8' | 'x'))
            | (Some('O'), Some('-'))
    )
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace(['\'', '’'], ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{MatchId, PlayerId};
    use crate::memory::CreatedBy;

    fn memory(player: PlayerId, kind: MemoryType, text: &str) -> Memory {
        Memory {
            player_id: Some(player),
            ..Memory::new("pip", kind, text, CreatedBy::MainAgent)
        }
    }

    fn verdict(newer: &str, older: &str, similarity: f32) -> Verdict {
        let p = PlayerId::new();
        let kind = MemoryType::PlayerBehavior;
        judge(
            &memory(p, kind, newer),
            &memory(p, kind, older),
            similarity,
            &MemoryConfig::default(),
        )
    }

    #[test]
    fn agreeing_near_duplicates_reinforce() {
        assert_eq!(
            verdict("Ann loves the Sicilian", "Ann really likes the Sicilian", 0.94),
            Verdict::Duplicate
        );
        assert_eq!(
            verdict("Ann loves the Sicilian", "Ann likes endgames", 0.6),
            Verdict::Unrelated
        );
    }

    #[test]
    fn opposite_sentiment_supersedes_even_when_cosine_says_duplicate() {
        assert_eq!(
            verdict("Ann hates the Sicilian", "Ann loves the Sicilian", 0.953),
            Verdict::Contradicts
        );
        assert_eq!(
            verdict("Ann hates blitz", "Ann loves the Sicilian", 0.4),
            Verdict::Unrelated
        );
    }

    #[test]
    fn two_repertoires_written_as_moves_are_not_two_figures() {
        let white = "Tomasz always plays the Scotch as White: 1.e4 e5 2.Nf3 Nc6 3.d4 exd4 4.Nxd4.";
        let black = "Against 1.e4 he plays the Pirc -- 1...d6 2.d4 Nf6 3.Nc3 g6 -- and puts his bishop on g7.";
        assert_eq!(verdict(black, white, 0.8), Verdict::Unrelated);
        assert!(figures(white).is_empty() && figures("1. d4 d5 2. c4").is_empty());
        assert_eq!(figures("won 3 in a row. 1.e4 every game"), ["3".to_string()].into());
        assert_eq!(
            figures("he lost 5. Then 4 more"),
            ["4".to_string(), "5".to_string()].into()
        );
        let knights =
            "Likes knights better than bishops -- gives up a bishop for a knight at the first excuse (Bxf6, Bxc6).";
        assert_eq!(
            verdict(knights, white, 0.5),
            Verdict::Unrelated,
            "no Bishop's Opening here"
        );
    }

    #[test]
    fn an_opening_named_for_one_side_is_no_choice_of_the_other() {
        let p = PlayerId::new();
        let tagged = |text: &str, tag: &str| Memory {
            tags: vec![tag.to_string(), "repertoire".to_string()],
            ..memory(p, MemoryType::PlayerBehavior, text)
        };
        let english = tagged(
            "W: 1.c4 every game, a reversed Sicilian with the bishop on g2.",
            "as_white",
        );
        let french = tagged("As Black against 1.e4 Ingrid plays the French Winawer.", "as_black");
        let config = MemoryConfig::default();
        assert_eq!(judge(&french, &english, 0.5, &config), Verdict::Unrelated);
        let sicilian = tagged("As Black against 1.e4 Ingrid plays the Sicilian.", "as_black");
        assert_eq!(
            judge(&french, &sicilian, 0.5, &config),
            Verdict::Contradicts,
            "one choice, two answers"
        );
    }

    #[test]
    fn negation_turns_sentiment_around() {
        assert_eq!(sentiment("Ann likes blitz"), 1);
        assert_eq!(sentiment("Ann does not like blitz any more"), -1);
        assert_eq!(sentiment("Ann never resigns"), -1);
        assert_eq!(sentiment("Ann doesn't hate the French"), 1);
        assert_eq!(sentiment("Ann plays blitz"), 0);
        assert!(sentiments_clash(1, -1) && sentiments_clash(0, -1));
        assert!(!sentiments_clash(1, 0), "liking is not contradicted by a plain fact");
    }

    #[test]
    fn another_opening_for_the_same_choice_supersedes() {
        let v = verdict("Ann plays the Caro-Kann now", "Ann always plays the Sicilian", 0.62);
        assert_eq!(v, Verdict::Contradicts);
        // White's Italian and Black's Sicilian are both part of a repertoire.
        let v = verdict("Ann opens with the Italian Game", "Ann always plays the Sicilian", 0.62);
        assert_eq!(v, Verdict::Unrelated);
    }

    #[test]
    fn games_are_events_never_merged_across_matches() {
        let p = PlayerId::new();
        let mut a = memory(p, MemoryType::GameContext, "Ann won in 32 moves with the Sicilian");
        let mut b = memory(p, MemoryType::GameContext, "Ann won in 40 moves with the Sicilian");
        a.related_match_id = Some(MatchId::new());
        b.related_match_id = Some(MatchId::new());
        assert_eq!(judge(&a, &b, 0.987, &MemoryConfig::default()), Verdict::Unrelated);
        b.related_match_id = a.related_match_id;
        b.content = a.content.clone();
        assert_eq!(judge(&a, &b, 0.999, &MemoryConfig::default()), Verdict::Duplicate);
    }

    #[test]
    fn other_days_and_months_are_other_facts() {
        assert_eq!(
            verdict(
                "Ann plays at her club on Thursdays now",
                "Ann plays at her club on Tuesdays",
                0.95
            ),
            Verdict::Contradicts
        );
        assert_eq!(
            figures("won 3 games since May"),
            BTreeSet::from(["3".to_string(), "may".to_string()])
        );
    }

    #[test]
    fn a_new_streak_replaces_the_old_one() {
        let p = PlayerId::new();
        let old = memory(p, MemoryType::Streak, "Ann has won 2 games in a row");
        let new = memory(p, MemoryType::Streak, "Ann has won 3 games in a row");
        assert_eq!(judge(&new, &old, 0.97, &MemoryConfig::default()), Verdict::Contradicts);
    }

    #[test]
    fn an_explicit_subject_decides() {
        let p = PlayerId::new();
        let subject = serde_json::json!({ "subject": "time control" });
        let old = Memory {
            metadata: subject.clone(),
            ..memory(p, MemoryType::PersonalNote, "Ann prefers blitz")
        };
        let new = Memory {
            metadata: subject,
            ..memory(p, MemoryType::PersonalNote, "Ann plays rapid games these days")
        };
        assert_eq!(judge(&new, &old, 0.5, &MemoryConfig::default()), Verdict::Contradicts);
    }

    #[test]
    fn other_players_and_lore_are_never_touched() {
        let (p, q) = (PlayerId::new(), PlayerId::new());
        let kind = MemoryType::PlayerBehavior;
        let (a, b) = (memory(p, kind, "loves the French"), memory(q, kind, "loves the French"));
        assert_eq!(judge(&a, &b, 1.0, &MemoryConfig::default()), Verdict::Unrelated);
        let lore = Memory::new("pip", kind, "loves the French", CreatedBy::PersonaLore);
        assert_eq!(judge(&a, &lore, 1.0, &MemoryConfig::default()), Verdict::Unrelated);
    }
}
