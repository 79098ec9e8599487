//! A player's words put in the third person, as a fact about them is
//! kept: "I learned chess from my dad" -> "Ann learned chess from their
//! dad", verbs conjugated after the new subject.

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
            "we're" | "we've" if out.is_empty() => {
                subject(&mut out);
                out.push(format!("{}{tail}", contracted_verb(&lower.replacen("we", "i", 1))));
            }
            "i'm" | "im" | "i've" | "i'd" | "i'll" => {
                subject(&mut out);
                out.push(format!("{}{tail}", contracted_verb(&lower)));
            }
            // "We had a baby girl": the player speaks for their household.
            "i" | "we" if lower == "i" || out.is_empty() => {
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
            "our" if !named && out.is_empty() => out.push(format!("{player}'s{tail}")),
            "my" | "our" => out.push(format!("their{tail}")),
            "me" => out.push(format!("them{tail}")),
            "myself" => out.push(format!("themselves{tail}")),
            "mine" => out.push(format!("theirs{tail}")),
            _ => out.push(words[i].to_string()),
        }
        i += 1;
    }
    out.join(" ")
}

/// The verb an "I" contraction stands for, in the third person.
fn contracted_verb(contraction: &str) -> &'static str {
    match contraction {
        "i've" => "has",
        "i'd" => "would",
        "i'll" => "will",
        _ => "is",
    }
}

/// At most this many words up to "and I" make one subject with "I"
/// ("my little brother and I").
const JOINT_SUBJECT_WORDS: usize = 4;

/// Words between a subject and its verb ("I really love").
const ADVERBS: &[&str] = &[
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
        if an_adverb(&lower) {
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

/// Whether a lower-case word between a subject and its verb is an adverb:
/// one of `ADVERBS`, or a word in -ly ("literally", "finally", not a verb
/// to conjugate into "literallies"; "apply", "supply", "reply", "rely"
/// and "fly" are verbs).
pub fn an_adverb(word: &str) -> bool {
    ADVERBS.contains(&word) || (word.len() > 4 && word.ends_with("ly") && !word.ends_with("ply"))
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
    "broke",
    "flew",
    "drove",
    "tore",
    "hurt",
    "wore",
    "swam",
    "rode",
    "threw",
    "chose",
    "forgot",
    "froze",
    "spoke",
    "stole",
    "woke",
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
