//! What a player tells of themselves, kept as a fact in the third person:
//! "Hi! I'm new here, I learned chess from my dad." holds one fact worth
//! keeping, "Ann learned chess from their dad". Passing states ("I'm
//! tired", "I'm new here"), thoughts about the game ("I think I'm lost"),
//! intentions and questions are not facts.

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
        false => vec![format!("{player} said: \"{}.\"", words.join(", "))],
    }
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
/// piano"): no part of what the player tells.
const INTERJECTIONS: &[&str] = &[
    "haha", "hahaha", "hehe", "lol", "lmao", "oh", "ah", "ooh", "well", "ok", "okay", "oops", "um", "uh", "hmm", "wow",
];

/// `text` without the interjections it opens with.
fn without_interjection(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let word_end = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
        let word = &rest[..word_end];
        if word.is_empty() || !INTERJECTIONS.iter().any(|i| i.eq_ignore_ascii_case(word)) {
            return rest;
        }
        rest = rest[word_end..].trim_start_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    }
}

/// Whether a first-person clause tells something that stays true.
fn lasting(c: &Clause) -> bool {
    let p = &format!(" {}", without_interjection(c.padded.trim_start()));
    if NOT_FACTS.iter().any(|n| p.starts_with(&format!(" {n} "))) || c.has_any_of(NOW) || c.has_any_of(THIS_GAME) {
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

/// "I learned chess from my dad" -> "Ann learned chess from their dad".
pub fn third_person(text: &str, player: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let (core, tail) = split_punctuation(words[i]);
        let lower = core.to_lowercase().replace('’', "'");
        let named = out.iter().any(|w| w.starts_with(player));
        // "My sister and I play": a subject of two, whose verb stays; it is
        // short and opens the clause ("... is the London and I play it"
        // joins a second clause, whose verb follows "I").
        let joint_subject = out.last().is_some_and(|w| w.eq_ignore_ascii_case("and"))
            && out.len() <= JOINT_SUBJECT_WORDS
            && !out.iter().any(|w| w == player);
        let subject = |out: &mut Vec<String>| out.push(player.to_string());
        match lower.as_str() {
            "i'm" | "im" => {
                subject(&mut out);
                out.push(format!("is{tail}"));
            }
            "i've" => {
                subject(&mut out);
                out.push(format!("has{tail}"));
            }
            "i'd" => {
                subject(&mut out);
                out.push(format!("would{tail}"));
            }
            "i'll" => {
                subject(&mut out);
                out.push(format!("will{tail}"));
            }
            "i" => {
                subject(&mut out);
                if !tail.is_empty() {
                    out.last_mut().expect("just pushed").push_str(tail);
                } else if !joint_subject {
                    i = conjugate_after_subject(&words, i + 1, &mut out);
                    continue;
                }
            }
            // The first "my" names the player: "blitz is Ann's favourite".
            "my" if !named => out.push(format!("{player}'s{tail}")),
            "my" => out.push(format!("their{tail}")),
            "me" => out.push(format!("them{tail}")),
            "myself" => out.push(format!("themselves{tail}")),
            "mine" => out.push(format!("theirs{tail}")),
            _ => out.push(words[i].to_string()),
        }
        i += 1;
    }
    out.join(" ")
}

/// At most this many words up to "and I" make one subject with "I"
/// ("my little brother and I").
const JOINT_SUBJECT_WORDS: usize = 4;

/// Words between a subject and its verb ("I really love").
pub const ADVERBS: &[&str] = &[
    "really",
    "always",
    "usually",
    "also",
    "still",
    "never",
    "often",
    "sometimes",
    "mostly",
    "only",
    "just",
    "actually",
    "mainly",
    "rarely",
    "absolutely",
    "totally",
    "kind",
    "sort",
    "kinda",
    "generally",
    "normally",
];

/// After "I": adverbs kept, then the verb put in the third person
/// ("always play" -> "always plays"); returns the index after the verb.
fn conjugate_after_subject(words: &[&str], mut i: usize, out: &mut Vec<String>) -> usize {
    while let Some(w) = words.get(i) {
        let lower = w.to_lowercase();
        if ADVERBS.contains(&lower.as_str()) {
            out.push(w.to_string());
            i += 1;
            continue;
        }
        let (core, tail) = split_punctuation(w);
        out.push(format!("{}{tail}", third_person_verb(core)));
        return i + 1;
    }
    i
}

fn third_person_verb(verb: &str) -> String {
    const KEEP: &[&str] = &[
        "was", "can", "could", "will", "would", "should", "might", "must", "may", "had", "did", "didn't", "can't",
        "couldn't", "won't", "wouldn't",
    ];
    let lower = verb.to_lowercase();
    match lower.as_str() {
        "am" => return "is".into(),
        "have" => return "has".into(),
        "do" => return "does".into(),
        "don't" | "dont" => return "doesn't".into(),
        "haven't" => return "hasn't".into(),
        "were" => return "was".into(),
        "go" => return "goes".into(),
        _ => {}
    }
    let past = lower.ends_with("ed") || IRREGULAR_PAST.contains(&lower.as_str());
    if KEEP.contains(&lower.as_str()) || past || lower.ends_with("ing") || !lower.chars().all(|c| c.is_alphabetic()) {
        return verb.to_string();
    }
    let consonant_y =
        lower.ends_with('y') && !lower.ends_with("ay") && !lower.ends_with("ey") && !lower.ends_with("oy");
    if consonant_y {
        format!("{}ies", &verb[..verb.len() - 1])
    } else if ["s", "sh", "ch", "x", "z", "o"].iter().any(|e| lower.ends_with(e)) {
        format!("{verb}es")
    } else {
        format!("{verb}s")
    }
}

const IRREGULAR_PAST: &[&str] = &[
    "learnt",
    "grew",
    "taught",
    "got",
    "went",
    "came",
    "began",
    "lost",
    "won",
    "beat",
    "met",
    "saw",
    "made",
    "took",
    "left",
    "became",
    "spent",
    "found",
    "knew",
    "thought",
    "bought",
    "brought",
    "fell",
    "felt",
    "gave",
    "held",
    "kept",
    "led",
    "read",
    "ran",
    "said",
    "sold",
    "sent",
    "sat",
    "stood",
    "told",
    "understood",
    "wrote",
    "drew",
];

/// "dad." -> ("dad", "."); trailing punctuation kept apart.
fn split_punctuation(word: &str) -> (&str, &str) {
    let end = word
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric() || *c == '\'' || *c == '’')
        .map_or(0, |(i, c)| i + c.len_utf8());
    word.split_at(end)
}
