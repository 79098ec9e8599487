//! The plain words of a chat line: it is cut into clauses, and each clause
//! is read by rules for the intents its words make plain ("draw?", "thanks",
//! "do you remember me"). A rule's weight says how sure it is: a strong one
//! decides, a weak one only leans the nearest-neighbour vote.

use super::intent::Intent;
use super::words::*;

/// A rule this sure decides without the vote.
pub const DECIDES: f32 = 0.75;

/// One clause of a line: its words, lower-cased and padded with spaces
/// ("␠i'm new here␠"), its original text, and whether it asks.
#[derive(Debug, Clone)]
pub struct Clause {
    pub text: String,
    pub padded: String,
    pub question: bool,
    /// It asks by itself (its own question mark, or it opens as questions
    /// do), not only as part of a sentence that asks: "I'm left handed,
    /// does that matter?" tells in its first clause.
    pub asks: bool,
    /// Index of the sentence it belongs to.
    pub sentence: usize,
}

impl Clause {
    pub fn has(&self, phrase: &str) -> bool {
        self.padded.contains(&format!(" {phrase} "))
    }

    pub fn has_any_of(&self, phrases: &[&str]) -> bool {
        self.has_any(phrases)
    }

    fn has_any(&self, phrases: &[&str]) -> bool {
        phrases.iter().any(|p| self.has(p))
    }

    fn starts_with_any(&self, phrases: &[&str]) -> bool {
        phrases.iter().any(|p| self.padded.starts_with(&format!(" {p} ")))
    }

    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.padded.split_whitespace()
    }

    /// The clause speaks of the player: "I", "my", "me".
    pub fn first_person(&self) -> bool {
        self.starts_with_any(FIRST_PERSON) || self.has_any(&["i", "i'm", "my", "me", "i've", "i'd"])
    }

    /// The clause opens with "we" or "our": the player speaks for their
    /// household ("we had a baby girl", "our twins start school").
    pub fn we_open(&self) -> bool {
        self.starts_with_any(&["we", "we're", "we've", "our"])
    }

    /// The player is the clause's subject ("I ...", "as Black I ...") or
    /// owns it ("my favourite opening is ...", "blitz is my time control").
    pub fn player_is_subject(&self) -> bool {
        self.says_i() || self.has("my") || self.we_open()
    }

    /// The clause has an "I" ("I", "I'm", "I've", "I'd").
    pub fn says_i(&self) -> bool {
        self.has_any(&["i", "i'm", "im", "i've", "i'd"])
    }
}

const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "im", "i've", "i'd", "my", "me", "i'll", "we", "we're", "we've", "our",
];

/// Whether a line says sorry, not only that the player is tired.
pub fn says_sorry(line: &str) -> bool {
    clauses(line).iter().any(|c| c.has_any(APOLOGY))
}

/// Cuts a line into clauses at sentence ends, semicolons and commas.
pub fn clauses(line: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut sentence = 0;
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<Clause>, question: bool, sentence: usize| {
        let text = current.trim().to_string();
        current.clear();
        if text.chars().any(char::is_alphanumeric) {
            out.push(Clause {
                padded: format!(" {} ", normalise(&text)),
                text,
                question,
                asks: question,
                sentence,
            });
        }
    };
    let chars: Vec<char> = line.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '.' if numbers_a_move(&current, &chars[i + 1..]) => current.push(c),
            '.' | '!' | '?' | ';' | '\n' => {
                flush(&mut current, &mut out, c == '?', sentence);
                if c != ';' {
                    sentence += 1;
                }
            }
            ',' => flush(&mut current, &mut out, false, sentence),
            _ => current.push(c),
        }
    }
    flush(&mut current, &mut out, false, sentence);
    let mut out: Vec<Clause> = out.into_iter().flat_map(split_introduction).collect();
    // A question mark asks for the whole sentence: "why, was that bad?";
    // so does a sentence opening as questions do ("what did I miss there").
    let asked: Vec<usize> = out
        .iter()
        .filter(|c| c.question || opens_a_question(c))
        .map(|c| c.sentence)
        .collect();
    for c in &mut out {
        c.asks |= opens_a_question(c);
        c.question |= asked.contains(&c.sentence);
    }
    out
}

/// A stop that ends no sentence: a move's number ("1.d4", "I always go
/// 1. e4") or a decimal ("2.5 hours"); `before` is the text up to it.
fn numbers_a_move(before: &str, after: &[char]) -> bool {
    let number = before.rsplit(' ').next().unwrap_or_default();
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    if after.first().is_some_and(char::is_ascii_alphanumeric) {
        return true;
    }
    let token: String = after
        .iter()
        .skip_while(|c| **c == ' ')
        .take_while(|c| !c.is_whitespace())
        .collect();
    number.len() <= 3 && is_san(token.trim_end_matches([',', '.']).to_lowercase().as_str())
}

/// "I am Noor and I teach piano": the name given is a clause of its own,
/// so the fact after it is not told as "Noor is Noor and Noor teaches
/// piano". A name is one or two words after "I am", "I'm", "my name is" or
/// "call me", the first capitalised ("I'm tired and ..." is no name).
fn split_introduction(c: Clause) -> Vec<Clause> {
    const INTRODUCTIONS: &[&str] = &["i am ", "i'm ", "i’m ", "im ", "my name is ", "call me "];
    let lower = c.text.to_lowercase();
    // The cut is made at byte offsets found in the lower-cased text.
    if lower.len() != c.text.len() {
        return vec![c];
    }
    let Some(intro) = INTRODUCTIONS.iter().find(|i| lower.starts_with(*i)) else {
        return vec![c];
    };
    let Some(and) = lower.find(" and ") else {
        return vec![c];
    };
    let name = &c.text[intro.len().min(and)..and];
    let words = name.split_whitespace().count();
    let capitalised = name.trim_start().starts_with(char::is_uppercase);
    if !(1..=2).contains(&words) || !capitalised {
        return vec![c];
    }
    let part = |text: &str| Clause {
        padded: format!(" {} ", normalise(text)),
        text: text.trim().to_string(),
        question: c.question,
        asks: c.asks,
        sentence: c.sentence,
    };
    vec![part(&c.text[..and]), part(&c.text[and + " and ".len()..])]
}

/// "what ...", "did I ...", "should I ...": a question without its mark.
fn opens_a_question(c: &Clause) -> bool {
    const OPENERS: &[&str] = &[
        "what", "whats", "what's", "why", "how", "who", "whom", "where", "when", "which", "is", "are", "am", "do",
        "does", "did", "can", "could", "should", "would", "will", "was", "were", "have", "has", "u", "r",
    ];
    let mut words = c.words();
    let first = words.next().unwrap_or("");
    // "do you", "is it", "can I": an auxiliary must meet a subject.
    let second = words.next().unwrap_or("");
    let wh = matches!(
        first,
        "what" | "whats" | "what's" | "why" | "how" | "who" | "whom" | "where" | "when" | "which"
    );
    let aux_subject = [
        "i", "you", "u", "we", "it", "this", "that", "my", "your", "the", "there", "he", "she",
    ]
    .contains(&second);
    OPENERS.contains(&first) && (wh || aux_subject)
}

/// Lower case, curly apostrophes straight, anything but letters, digits,
/// apostrophes, '+', '#' and '-' a space.
pub fn normalise(text: &str) -> String {
    let mapped: String = text
        .to_lowercase()
        .chars()
        .map(|c| match c {
            '’' | '‘' | '`' => '\'',
            c if c.is_alphanumeric() || matches!(c, '\'' | '+' | '#' | '-') => c,
            _ => ' ',
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The intents a clause's words make plain, with how sure each rule is.
pub fn read(c: &Clause) -> Vec<(Intent, f32)> {
    let mut found = Vec::new();
    let mut add = |intent, weight| found.push((intent, weight));
    if c.has_any(TAKEBACK) {
        add(Intent::TakebackRequest, 1.0);
    }
    let about_a_draw = c.has_any(&[
        "is it a draw",
        "is this a draw",
        "is this drawn",
        "is it drawn",
        "dead draw",
    ]);
    if !about_a_draw && (c.has("draw") || c.has_any(&["split the point", "call it a day", "peace"])) {
        let asked = c.question || c.has_any(&["offer", "agree", "call it", "want", "accept", "take a", "shall we"]);
        add(Intent::DrawRequest, if asked { 1.0 } else { 0.4 });
    }
    if c.has_any(MEMORY) {
        add(
            Intent::AsksMemory,
            if c.question || c.has("tell me") { 1.0 } else { 0.7 },
        );
    }
    let board = position(c);
    if let Some(w) = board {
        add(Intent::AsksPosition, w);
    }
    let persona = about_persona(c);
    if let Some(w) = persona {
        add(Intent::AsksPersona, w);
    }
    // "Who taught me chess?", "what's my job?": a question about the player
    // is one about what the persona remembers of them.
    let about_me = c.question && c.has_any(&["me", "my"]) && !c.has("tell me");
    if about_me && board.is_none() && persona.is_none_or(|w| w < 0.9) && !c.has_any(TAKEBACK) {
        add(Intent::AsksMemory, 0.8);
    }
    if c.starts_with_any(GREETINGS) || c.has_any(&["nice to meet you", "how are you", "glhf", "gl hf"]) {
        add(Intent::Greeting, if c.words().count() <= 6 { 1.0 } else { 0.7 });
    }
    let glad_to_see = c.has_any(&["nice to see you", "good to see you", "great to see you"]);
    if glad_to_see {
        add(Intent::Greeting, 0.9);
    }
    if c.has_any(FAREWELLS) && !glad_to_see {
        add(Intent::Farewell, 0.9);
    }
    if c.has_any(THANKS) {
        add(Intent::Thanks, 0.9);
    }
    if c.has_any(COMPLIMENTS) {
        add(Intent::Compliment, 0.8);
    } else if c.has_any(&["wow", "whoa", "nice", "cool"]) {
        add(Intent::Compliment, 0.5);
    }
    if c.has_any(TRASH) {
        add(Intent::TrashTalk, 0.8);
    }
    if c.has_any(APOLOGY) || c.has_any(TIRED) {
        add(Intent::Apology, 0.85);
    }
    if !c.question && c.first_person() {
        // Said to the persona ("my grandma plays better than you"), it is
        // less about the player than about the persona.
        let to_you = c.has_any(&["you", "your", "you're"]);
        if preference(c) {
            add(Intent::Preference, if to_you { 0.6 } else { 0.9 });
        } else if c.has_any(LIFE) && !to_you {
            add(Intent::SelfDisclosure, 0.85);
        } else {
            add(Intent::SelfDisclosure, 0.5);
        }
    }
    found
}

fn preference(c: &Clause) -> bool {
    let likes = c.has_any(LIKES);
    let chess = c.has_any(CHESS_TASTES) || !crate::chess::openings::book().named(&c.text).is_empty();
    likes && chess
}

/// About the board: who is better, why a move, was it a blunder.
fn position(c: &Clause) -> Option<f32> {
    let plain = [
        "am i winning",
        "am i losing",
        "am i better",
        "am i worse",
        "who's better",
        "who is better",
        "who's winning",
        "who is winning",
        "eval",
        "evaluation",
        "best move",
        "is it lost",
        "is this lost",
        "is it winning",
        "is this winning",
        "is it a draw",
        "is this a draw",
        "is it drawn",
        "is this drawn",
        "good move",
        "bad move",
        "blunder",
        "blundered",
        "mistake",
        "threat",
        "threatening",
        "your plan",
        "hanging",
        "what should i",
        "how do i",
        "position",
        "still in it",
        "any chance",
        "was that good",
        "was that bad",
        "inaccuracy",
        "good for me",
        "bad for me",
        "should i",
        "trade",
        "exchange",
        "castle",
        "what did i miss",
        "did i miss",
    ];
    let why_move = c.has("why") && (c.words().any(is_san) || c.has_any(&["that move", "this move", "did you", "not"]));
    match (c.has_any(&plain) || why_move, c.question) {
        (true, true) => Some(1.0),
        (true, false) => Some(0.45),
        _ => None,
    }
}

/// A question put to the persona about itself.
fn about_persona(c: &Clause) -> Option<f32> {
    let specific = [
        "about yourself",
        "where are you from",
        "where did you learn",
        "who taught you",
        "how long have you",
        "your favourite",
        "your favorite",
        "your rating",
        "your elo",
        "are you always",
        "do you play",
        "do you like",
        "do you enjoy",
        "what do you do",
        "are you a",
        "are you an",
        "are you human",
        "are you a bot",
        "your name",
        "your style",
        "how old are you",
        "kind of player",
        "sort of player",
        "how strong are you",
        "how good are you",
    ];
    if c.has_any(&specific) && (c.question || c.has("tell me")) {
        return Some(0.9);
    }
    let to_you = c.has_any(&["you", "your", "yourself", "you're"]);
    (c.question && to_you).then_some(0.6)
}

/// "Nf6", "exd5", "O-O", "e4", "Qxf7#": a move in SAN.
pub fn is_san(word: &str) -> bool {
    let w = word.trim_end_matches(['+', '#', '?', '!']);
    if matches!(w, "o-o" | "o-o-o" | "0-0" | "0-0-0") {
        return true;
    }
    let b = w.as_bytes();
    let square = |s: &[u8]| s.len() == 2 && (b'a'..=b'h').contains(&s[0]) && (b'1'..=b'8').contains(&s[1]);
    match b.len() {
        2 => square(b),
        3..=6 => {
            let piece = matches!(b[0], b'n' | b'b' | b'r' | b'q' | b'k');
            let pawn_capture = (b'a'..=b'h').contains(&b[0]) && b[1] == b'x';
            (piece || pawn_capture) && square(&b[b.len() - 2..])
        }
        _ => false,
    }
}
