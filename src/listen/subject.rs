//! The "I" a chat line leaves out, put back: "just got engaged!" is "I
//! just got engaged", "broke my wrist skiing" is "I broke my wrist
//! skiing", so a fact keeps the player as its subject. Only the opening
//! words are read: a verb of a life or a taste, a past tense with what it
//! acted on, a state ("back from"), a relative ("daughter's got a fever").

use super::facts::without_interjection;
use super::rules::Clause;

/// Verbs that open a clause whose "I" was left out, as chat leaves it out:
/// "just got engaged!", "learned from YouTube during lockdown", "love
/// the Sicilian". Past tenses and verbs of taste and of a life.
const SUBJECTLESS_VERBS: &[&str] = &[
    "got",
    "had",
    "went",
    "came",
    "moved",
    "learned",
    "learnt",
    "started",
    "finished",
    "took",
    "made",
    "won",
    "lost",
    "began",
    "became",
    "left",
    "found",
    "met",
    "bought",
    "grew",
    "broke",
    "fell",
    "sold",
    "ran",
    "flew",
    "drove",
    "gave",
    "tore",
    "hurt",
    "taught",
    "spent",
    "joined",
    "retired",
    "graduated",
    "married",
    "love",
    "hate",
    "prefer",
    "live",
    "coach",
    "own",
    "have",
];

/// "failed my driving test", "passed the bar", "crashed our car": a
/// regular past tense followed by what it acted on.
fn regular_past_with_object(word: &str, next: Option<&&str>) -> bool {
    const OBJECT: [&str; 9] = ["my", "our", "a", "an", "the", "his", "her", "their", "it"];
    const NOT_PAST: [&str; 6] = ["need", "speed", "feed", "seed", "bed", "red"];
    word.len() >= 5 && word.ends_with("ed") && !NOT_PAST.contains(&word) && next.is_some_and(|n| OBJECT.contains(n))
}

/// Openings that stand for "I'm": "back from school", "off to teach".
const SUBJECTLESS_STATES: &[&str] = &["back from", "off to", "home from", "fresh off"];

/// Words ending in "-ing" that are no verb of the player's.
const NOT_VERBS: &[&str] = &[
    "nothing",
    "something",
    "anything",
    "everything",
    "morning",
    "evening",
    "during",
    "spring",
    "string",
    "wedding",
    "building",
    "ceiling",
    "pudding",
    "opening",
    "ending",
    "timing",
    "darling",
    "sibling",
];

/// Who a clause opening with them belongs to, its "my" left out:
/// "daughter's got a fever", "kids finally asleep, all four of them".
const KIN: &[&str] = &[
    "daughter",
    "daughter's",
    "son",
    "son's",
    "kids",
    "kids'",
    "kid",
    "kid's",
    "wife",
    "wife's",
    "husband",
    "husband's",
    "partner",
    "partner's",
    "mum",
    "mum's",
    "mom",
    "mom's",
    "dad",
    "dad's",
    "baby",
    "baby's",
    "twins",
    "dog",
    "dog's",
    "cat",
    "cat's",
    "sister",
    "sister's",
    "brother",
    "brother's",
];

/// Who close to the player a fact in the third person tells of, as the
/// player would name them to their face ("your son"): "Sam's son starts
/// university in September" -> "son"; None for the player's own news
/// ("Sam's exam is on Monday": an exam is no one).
pub fn kin_of<'a>(fact: &'a str, player: &str) -> Option<&'a str> {
    let rest = fact.strip_prefix(player)?.strip_prefix("'s ")?;
    let word = rest.split(|c: char| !c.is_alphanumeric()).next()?;
    KIN.contains(&word).then_some(word)
}

/// The clause with the "I" chat left out put back ("just got off my
/// shift" -> "I just got off my shift"), so its fact has the player as
/// its subject; other clauses unchanged.
pub fn restore_subject(mut c: Clause) -> Clause {
    // "my" owns, it is no subject: "just got off my shift" left its "I" out.
    if c.says_i() || c.we_open() {
        return c;
    }
    let text = without_interjection(&c.text).to_string();
    let lower = super::rules::normalise(&text);
    let words: Vec<&str> = lower.split_whitespace().collect();
    let adverbs = words
        .iter()
        .take_while(|w| matches!(**w, "just" | "finally" | "recently" | "also"))
        .count();
    let rest = words[adverbs..].join(" ");
    let Some(&first) = words.get(adverbs) else {
        return c;
    };
    let subject = match first {
        _ if SUBJECTLESS_STATES.iter().any(|s| rest.starts_with(&format!("{s} "))) => "I'm",
        // "got my test Monday" is "I've got"; "just got engaged" is past.
        "got" if adverbs == 0 => "I've",
        "been" => "I've",
        "can't" | "cant" => "I",
        w if KIN.contains(&w) => "my",
        w if SUBJECTLESS_VERBS.contains(&w) => "I",
        w if regular_past_with_object(w, words.get(adverbs + 1)) => "I",
        w if w.len() > 5 && w.ends_with("ing") && !NOT_VERBS.contains(&w) => "I'm",
        _ => return c,
    };
    let mut chars = text.chars();
    let opening: String = chars.next().map(|f| f.to_lowercase().collect()).unwrap_or_default();
    c.text = format!("{subject} {opening}{}", chars.as_str());
    c.padded = format!(" {} ", super::rules::normalise(&c.text));
    c
}
