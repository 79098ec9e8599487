//! What a player tells of themselves, kept as a fact in the third person:
//! "Hi! I'm new here, I learned chess from my dad." holds one fact worth
//! keeping, "Ann learned chess from their dad". Passing states ("I'm
//! tired", "I'm new here"), thoughts about the game ("I think I'm lost"),
//! intentions and questions are not facts.

use super::person::third_person;
use super::rules::Clause;

/// Life events that stay true: "I just moved to Leeds" is news worth keeping.
const LASTING_NEWS: &[&str] = &[
    "started",
    "moved",
    "married",
    "retired",
    "graduated",
    "joined",
    "became",
    "had a baby",
    "got a job",
    "got a new job",
];

/// After "I'm"/"I am": states that pass.
const PASSING: &[&str] = &[
    "tired",
    "exhausted",
    "sleepy",
    "bored",
    "hungry",
    "thirsty",
    "sick",
    "ill",
    "nervous",
    "happy",
    "sad",
    "excited",
    "new here",
    "new to this site",
    "back",
    "here",
    "ready",
    "winning",
    "losing",
    "sorry",
    "thinking",
    "busy",
    "late",
    "stuck",
    "confused",
    "fine",
    "ok",
    "okay",
    "good",
    "great",
    "well",
    "not sure",
    "kidding",
    "joking",
    "lost",
    "in trouble",
    "going to",
    "gonna",
    "about to",
    "done",
    "so",
    "really",
    "trying",
    "just",
    "afraid",
    "scared",
    "impressed",
    "surprised",
    "curious",
    "playing",
    "waiting",
    "still",
    "sure",
    "glad",
    "pleased",
    "annoyed",
    "feeling",
    "off",
    "on my way",
    "at home",
    "home",
    "in a hurry",
    "at",
    "on",
    "in a",
    "in the",
];

/// Words that tie a clause to this game (its clock, pieces, moves): about
/// the game, not a lasting fact about the player.
const THIS_GAME: &[&str] = &[
    "clock",
    "minutes left",
    "seconds left",
    "time left",
    "this game",
    "this match",
    "this position",
    "my king",
    "my queen",
    "my rook",
    "my rooks",
    "my bishop",
    "my knight",
    "my pawn",
    "my pawns",
    "my pieces",
    "my move",
    "my turn",
    "my position",
    "my last move",
    "my plan",
];

/// Words that date a clause to the moment: it tells of now, not of the player.
const NOW: &[&str] = &[
    "today",
    "tonight",
    "right now",
    "this morning",
    "this evening",
    "this afternoon",
    "yesterday",
];

/// Openings of a clause that tell a thought, a plan or the moment, not a fact.
const NOT_FACTS: &[&str] = &[
    "i think",
    "i guess",
    "i see",
    "i know",
    "i don't know",
    "i dont know",
    "i mean",
    "i hope",
    "i wonder",
    "i was going to",
    "i wanted to",
    "i want",
    "i'll",
    "i will",
    "i'd",
    "i would",
    "i wouldn't",
    "i wouldnt",
    "i could",
    "i couldn't",
    "i couldnt",
    "i can't",
    "i cant",
    "i can",
    "i missed",
    "i blundered",
    "i need",
    "i have to",
    "i must",
    "i should",
    "i feel",
    "i felt",
    "i forgot",
    "i didn't see",
    "i did not see",
    "i resign",
    "i give up",
    "i offer",
    "i accept",
    "i agree",
    "i love this game",
    "i like this game",
    "i like that",
    "i love that",
    "i like it",
    "i love it",
    "i hate this",
    "i hate that",
    "i hate it",
    "i'm sorry",
    "my bad",
    "my move",
    "my turn",
    "my king",
    "my queen",
    "my rook",
    "my bishop",
    "my knight",
    "my pawn",
    "my position",
    "my last move",
    "my mistake",
    "my clock",
    "my time",
    "i misclicked",
    "i played",
    "i meant",
];

/// A clause as the facts see it.
pub struct Marked {
    pub clause: Clause,
    /// Its words tell of the player's life or tastes, and nothing else for sure.
    pub tells: bool,
    /// The player is its subject ("I ...", "My ...").
    pub subject: bool,
}

/// The facts in these clauses (one per sentence that holds any), in the
/// third person with the player's name. A clause without the player as
/// its subject only goes on a fact its sentence began ("I love the
/// Italian, it's my favourite opening").
pub fn facts(clauses: &[Marked], player: &str) -> Vec<String> {
    collect(clauses, player, lasting)
}

fn collect(clauses: &[Marked], player: &str, lasting: impl Fn(&Clause) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<(usize, Vec<String>)> = None;
    for m in clauses {
        let c = &m.clause;
        let goes_on = current.as_ref().is_some_and(|(s, _)| *s == c.sentence);
        if !m.tells || !(m.subject || goes_on) || c.question || !lasting(c) {
            continue;
        }
        let told = without_interjection(&c.text).to_string();
        match &mut current {
            Some((sentence, parts)) if *sentence == c.sentence => parts.push(told),
            _ => {
                if let Some((_, parts)) = current.take() {
                    out.push(finish(parts, player));
                }
                current = Some((c.sentence, vec![told]));
            }
        }
    }
    if let Some((_, parts)) = current {
        out.push(finish(parts, player));
    }
    out
}

/// The facts a line the learned model judged worth keeping tells, from
/// its clauses marked `tells`: those where the player is the subject and
/// that last by their words, else every one where the player is the
/// subject; if none has the player as its subject ("night shift done",
/// "just got engaged!"), the model's judgement stands and the player's own
/// words are kept, quoted.
pub fn told(marked: &[Marked], player: &str) -> Vec<String> {
    let lasting = facts(marked, player);
    if !lasting.is_empty() {
        return lasting;
    }
    let subject = collect(marked, player, |_| true);
    if !subject.is_empty() {
        return subject;
    }
    let words: Vec<&str> = marked
        .iter()
        .filter(|m| m.tells && !m.clause.question)
        .map(|m| without_interjection(&m.clause.text).trim_end_matches(['.', '!', ',', ' ']))
        .filter(|t| !t.is_empty())
        .collect();
    match words.is_empty() {
        true => Vec::new(),
        false => vec![format!("{}\"{}.\"", said_as_is(player), words.join(", "))],
    }
}

/// How a fact kept in the player's own words opens: `Ann said: "..."`.
fn said_as_is(player: &str) -> String {
    format!("{player} said: ")
}

/// Fewer words than this in a line kept as the player said it say too
/// little to keep: "first time here", "back".
const SCRAP_WORDS: usize = 4;

/// Whether `fact` is a line kept in the player's words, and a scrap.
pub(super) fn a_scrap(fact: &str, player: &str) -> bool {
    fact.strip_prefix(&said_as_is(player))
        .is_some_and(|quote| quote.split_whitespace().count() < SCRAP_WORDS)
}

/// Whether a memory is a line kept in the player's own words, not a fact
/// put in the persona's (`told`'s last resort).
pub fn kept_as_said(content: &str, player: &str) -> bool {
    content.starts_with(&said_as_is(player))
}

/// One sentence's telling clauses, joined and put in the third person.
fn finish(parts: Vec<String>, player: &str) -> String {
    let mut text = third_person(&parts.join(", "), player);
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    text.push('.');
    text
}

/// Sounds before the words ("haha I would never...", "oh, I teach
/// piano"), and the speaker's comments on their own words ("honestly",
/// "tbh", "btw"): no part of what the player tells.
const INTERJECTIONS: &[&str] = &[
    "haha",
    "hahaha",
    "hehe",
    "lol",
    "lmao",
    "oh",
    "ah",
    "ooh",
    "well",
    "ok",
    "okay",
    "oops",
    "um",
    "uh",
    "hmm",
    "wow",
    "ugh",
    "honestly",
    "tbh",
    "frankly",
    "seriously",
    "btw",
    "anyway",
    "anyways",
    "bruh",
    "bro",
    "dude",
    "mate",
    "fr",
    "ngl",
    "omg",
    "yeah",
    "yep",
];

/// Laughter after the words ("my wife thinks chess is a waste of time
/// haha"), or an aside ("I passed my exam btw"): no part of what is told
/// either.
const LAUGHTER: &[&str] = &["haha", "hahaha", "hehe", "lol", "lmao", "rofl", "xd", "btw", "tbh"];

/// `text` without the interjections it opens with, and the laughter it
/// ends with.
pub(super) fn without_interjection(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let word_end = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
        let word = &rest[..word_end];
        if word.is_empty() || !INTERJECTIONS.iter().any(|i| i.eq_ignore_ascii_case(word)) {
            return without_laughter(rest);
        }
        rest = rest[word_end..].trim_start_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    }
}

fn without_laughter(text: &str) -> &str {
    let mut rest = text;
    loop {
        let body = rest.trim_end_matches(|c: char| !c.is_alphanumeric());
        let start = body
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_alphanumeric())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let laughs = LAUGHTER.iter().any(|l| l.eq_ignore_ascii_case(&body[start..]));
        if start == 0 || !laughs {
            return rest;
        }
        rest = body[..start].trim_end();
    }
}

/// Words that join a clause to the one before it.
const CONJUNCTIONS: &[&str] = &["so", "and", "but", "because", "cause", "cos", "coz"];

/// Whether a first-person clause tells something that stays true.
/// Words that open a clause as its subject, not as a request ("you beat
/// me" is told; "wish me luck" asks).
const SUBJECTS: [&str; 9] = ["i", "you", "he", "she", "it", "we", "they", "this", "that"];

fn lasting(c: &Clause) -> bool {
    let p = &format!(" {}", without_interjection(c.padded.trim_start()));
    // "..., so I'm tired": the joining word is no part of what is told.
    let p = &CONJUNCTIONS
        .iter()
        .find_map(|j| p.strip_prefix(&format!(" {j} ")).map(|rest| format!(" {rest}")))
        .unwrap_or_else(|| p.clone());
    if NOT_FACTS.iter().any(|n| p.starts_with(&format!(" {n} "))) || c.has_any_of(NOW) || c.has_any_of(THIS_GAME) {
        return false;
    }
    // "..., wish me luck": a request of the listener, no part of the fact.
    let mut words = p.split_whitespace();
    if let (Some(verb), Some("me")) = (words.next(), words.next())
        && !SUBJECTS.contains(&verb)
    {
        return false;
    }
    if let Some(rest) = ["i'm", "im", "i am"]
        .iter()
        .find_map(|s| p.strip_prefix(&format!(" {s} ")))
    {
        let rest = format!(" {rest}");
        let article = rest.starts_with(" a ") || rest.starts_with(" an ");
        let age = rest.split_whitespace().next().is_some_and(|w| w.parse::<u32>().is_ok());
        return article
            || age
            || rest.starts_with(" from ")
            || !PASSING.iter().any(|s| rest.starts_with(&format!(" {s} ")));
    }
    if p.starts_with(" i just ") {
        return LASTING_NEWS.iter().any(|n| p.contains(&format!(" {n} ")));
    }
    // "It's my favourite opening" belongs to the clause before it; a clause
    // must speak of the player to be about them.
    c.first_person()
}
