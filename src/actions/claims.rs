//! Engine-checked words. Before the persona says something about the board,
//! each sentence's claims are checked against the game: a move it names was
//! played or is legal now, a capture / check / mate happened, a "blunder" is
//! one by the engine's odds. A sentence with a false or unverifiable claim is
//! dropped; a message with nothing true left is not sent.

use crate::chess::Game;
use crate::chess::odds::MoveClass;
use crate::triggers::{GameContext, MoveFact};

/// What the checker made of one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Every claim holds (or there were none).
    True,
    /// Only these sentences hold; the reasons for what was cut.
    Trimmed { text: String, cut: Vec<String> },
    /// Nothing true left to say.
    False { cut: Vec<String> },
}

pub fn check(text: &str, ctx: &GameContext) -> Checked {
    let facts = Facts::of(ctx);
    let mut kept = Vec::new();
    let mut cut = Vec::new();
    // Sentences are found and judged with quoted words blanked out: a quote
    // (a memory of another game, the player's own words) claims nothing
    // about this board, and its full stops end no sentence of ours.
    let claims = blank_quotes(text);
    for range in sentences(&claims) {
        let sentence = &text[range.clone()];
        match facts.falsehood(&claims[range]) {
            Some(why) => cut.push(format!("\"{}\": {why}", sentence.trim())),
            None => kept.push(sentence.trim()),
        }
    }
    match (cut.is_empty(), kept.is_empty()) {
        (true, _) => Checked::True,
        (false, true) => Checked::False { cut },
        (false, false) => Checked::Trimmed {
            text: kept.join(" "),
            cut,
        },
    }
}

/// What is true on the board now, in the terms claims use.
struct Facts<'a> {
    /// The last move played and the one about to be played, if any.
    recent: Vec<&'a MoveFact>,
    /// SANs (without +/#) of the moves played lately.
    played: Vec<String>,
    /// SANs (without +/#) legal in the current position, listed the first
    /// time a sentence names a move not played (most name none: listing
    /// them, each SAN found by playing the move, was most of the check).
    legal: std::cell::OnceCell<Vec<String>>,
    fen: &'a str,
    mated: bool,
}

impl<'a> Facts<'a> {
    fn of(ctx: &'a GameContext) -> Facts<'a> {
        let recent: Vec<&MoveFact> = ctx
            .last_moves
            .last()
            .into_iter()
            .chain(ctx.planned_move.as_ref())
            .collect();
        let played = ctx
            .last_moves
            .iter()
            .chain(&ctx.planned_move)
            .map(|m| bare(&m.san))
            .collect();
        let mated = ctx.end.as_ref().is_some_and(|e| e.termination == "checkmate");
        Facts {
            recent,
            played,
            legal: std::cell::OnceCell::new(),
            fen: &ctx.fen,
            mated,
        }
    }

    fn legal(&self) -> &[String] {
        self.legal.get_or_init(|| {
            Game::new(Some(self.fen))
                .map(|g| g.legal_moves().into_iter().map(|(_, san)| bare(&san)).collect())
                .unwrap_or_default()
        })
    }

    /// Why `sentence` is not true, if it is not.
    fn falsehood(&self, sentence: &str) -> Option<String> {
        for san in san_tokens(sentence) {
            if !self.played.contains(&san) && !self.legal().contains(&san) {
                return Some(format!("{san} was not played and is not legal here"));
            }
        }
        let words = words(sentence);
        let mate = words.iter().any(|w| w == "checkmate") || sentence.contains('#');
        if mate && !self.mated && !self.recent.iter().any(|m| m.san.ends_with('#')) {
            return Some("no checkmate on the board".into());
        }
        if !mate && claims_check(&words) && !self.recent.iter().any(|m| m.check) {
            return Some("no check on the board".into());
        }
        // "took", not "took back" (a takeback is no capture).
        let capture_words = ["took", "takes", "captured", "captures", "grabbed", "snatched"];
        let takes = words
            .iter()
            .enumerate()
            .any(|(i, w)| capture_words.contains(&w.as_str()) && words.get(i + 1).is_none_or(|n| n != "back"));
        if takes && !self.recent.iter().any(|m| m.captured.is_some()) {
            return Some("nothing was captured".into());
        }
        for (word, at_least) in [
            ("blunder", MoveClass::Blunder),
            ("mistake", MoveClass::Mistake),
            ("inaccuracy", MoveClass::Inaccuracy),
        ] {
            if words.iter().any(|w| w.starts_with(word)) && !self.last_move_at_least(at_least) {
                return Some(format!("the engine does not call the last move a {word}"));
            }
        }
        None
    }

    fn last_move_at_least(&self, class: MoveClass) -> bool {
        let rank = |c: MoveClass| c as u8;
        self.recent
            .first()
            .and_then(|m| m.odds)
            .is_some_and(|o| rank(o.class) >= rank(class))
    }
}

/// "check" as a claim ("Check!", "in check", ", check."), not "let me check".
fn claims_check(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        w == "check" && (i == 0 || i + 1 == words.len() || words[i - 1] == "in" || words[i - 1] == "gives")
    })
}

/// The text with every closed quoted span, quote marks included, turned to
/// spaces of the same byte length, so positions in one are positions in the
/// other. A quote never closed blanks nothing: a stray mark must not hide
/// the claims after it.
pub(super) fn blank_quotes(text: &str) -> String {
    let mut opened_at: Option<usize> = None;
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let blank = match (c, opened_at) {
            ('"' | '“', None) => {
                opened_at = Some(i);
                true
            }
            ('"' | '”', Some(_)) => {
                opened_at = None;
                true
            }
            (_, inside) => inside.is_some(),
        };
        if blank {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    if let Some(at) = opened_at {
        out.truncate(at);
        out.push_str(&text[at..]);
    }
    out
}

/// Byte ranges of the sentences in `text`.
pub(super) fn sentences(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        // "1. e4": a move number's dot ends no sentence.
        let move_number = c == '.'
            && text[..i]
                .rsplit(char::is_whitespace)
                .next()
                .is_some_and(is_move_number_body);
        let end_of_sentence =
            matches!(c, '.' | '!' | '?') && !move_number && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if end_of_sentence {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(start..text.len());
    }
    out
}

pub(super) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Tokens written like a move in SAN ("Nf3", "exd5", "O-O", "e8=Q+") that
/// speak of this board. Quoted words and numbered lines ("opened with 1. e4
/// e5") tell of other games and are not claims about this one.
pub(super) fn san_tokens(text: &str) -> Vec<String> {
    let unquoted: String = text
        .split(['"', '“', '”'])
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    // Whether the words read now name places: after "on", and on through
    // a list of squares ("on d2 and f2"), to the end of the clause.
    'clauses: for clause in unquoted.split([';', '(', ')', '!', '?']) {
        let mut places = false;
        for token in clause.split(|c: char| c.is_whitespace() || c == ',') {
            if is_move_number(token) {
                break 'clauses;
            }
            let token = token.trim_end_matches('.');
            if token.is_empty() {
                continue;
            }
            // "your knight on f3" names a square, not the pawn move f3.
            let square = places && token.len() == 2 && looks_like_san(token);
            if looks_like_san(token) && !square {
                out.push(bare(token));
            }
            let word = token.to_lowercase();
            places =
                SQUARE_PREPOSITIONS.contains(&word.as_str()) || (places && (square || word == "and" || word == "or"));
        }
    }
    out
}

/// Words after which a bare square ("e4") is a place, not a pawn's move.
const SQUARE_PREPOSITIONS: [&str; 5] = ["on", "at", "from", "onto", "into"];

/// The word before a dot is a bare move number ("12" in "12.", "12..").
fn is_move_number_body(word: &str) -> bool {
    let digits = word.trim_end_matches('.');
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// "1.", "12...", "1.e4": the start of a numbered line.
fn is_move_number(token: &str) -> bool {
    let digits = token.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && token[digits..].starts_with('.')
}

fn looks_like_san(t: &str) -> bool {
    let t = t.trim_end_matches(['+', '#']);
    if t == "O-O" || t == "O-O-O" {
        return true;
    }
    let body = t.split('=').next().unwrap_or(t);
    let b = body.as_bytes();
    let square = |i: usize| b.len() >= i + 2 && (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]);
    match b.first() {
        Some(b'K' | b'Q' | b'R' | b'B' | b'N') => b.len() >= 3 && square(b.len() - 2),
        Some(b'a'..=b'h') => (b.len() == 2 && square(0)) || (b.len() == 4 && b[1] == b'x' && square(2)),
        _ => false,
    }
}

/// A SAN without its check/mate marks and annotations.
pub(super) fn bare(san: &str) -> String {
    san.trim_end_matches(['+', '#', '!', '?']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::odds::MoveOdds;

    fn ctx(moves: &str, last_class: Option<MoveClass>) -> GameContext {
        let sans: Vec<&str> = moves.split_whitespace().collect();
        let mut odds = vec![None; sans.len()];
        if let (Some(class), Some(last)) = (last_class, odds.last_mut()) {
            *last = Some(MoveOdds {
                white: 50.0,
                delta: -20.0,
                class,
                eval: None,
                deep: false,
            });
        }
        crate::triggers::test_context(&sans, &odds)
    }

    fn cut(c: &Checked) -> usize {
        match c {
            Checked::True => 0,
            Checked::Trimmed { cut, .. } | Checked::False { cut } => cut.len(),
        }
    }

    #[test]
    fn a_capture_that_did_not_happen_is_not_said() {
        let quiet = ctx("e4 e5 Nf3", None);
        assert!(matches!(
            check("You took my pawn. Rude!", &quiet),
            Checked::Trimmed { .. }
        ));
        assert!(matches!(check("You took my pawn.", &quiet), Checked::False { .. }));
        let capture = ctx("e4 d5 exd5", None);
        assert_eq!(check("You took my pawn. Rude!", &capture), Checked::True);
        // A takeback is no capture.
        let no_takebacks = "Viktor never takes back a sacrifice, you don't take back a move.";
        assert_eq!(check(no_takebacks, &quiet), Checked::True);
    }

    #[test]
    fn named_moves_must_be_played_or_legal() {
        let c = ctx("e4 e5 Nf3", None);
        assert_eq!(check("Nf3, a classic. I like Nc6 here.", &c), Checked::True);
        let out = check("Nf3, a classic. Next comes Bxf7+ for me.", &c);
        assert_eq!(
            out,
            Checked::Trimmed {
                text: "Nf3, a classic.".into(),
                cut: vec!["\"Next comes Bxf7+ for me.\": Bxf7 was not played and is not legal here".into()],
            }
        );
    }

    #[test]
    fn check_and_mate_must_be_on_the_board() {
        let c = ctx("e4 e5 Nf3", None);
        assert_eq!(cut(&check("Check! Mind your king.", &c)), 1);
        assert_eq!(
            check("Let me check the clock.", &c),
            Checked::True,
            "the verb is no claim"
        );
        let mated = ctx("f3 e5 g4 Qh4#", None);
        assert_eq!(check("Qh4#, checkmate!", &mated), Checked::True);
        assert_eq!(cut(&check("Checkmate!", &c)), 1);
    }

    #[test]
    fn blunders_are_the_engines_word_not_the_personas() {
        let unjudged = ctx("e4 e5 Qh5", None);
        assert_eq!(
            cut(&check("That was a blunder.", &unjudged)),
            1,
            "no odds: cannot say it"
        );
        let good = ctx("e4 e5 Qh5", Some(MoveClass::Good));
        assert_eq!(cut(&check("What a blunder!", &good)), 1);
        let blunder = ctx("e4 e5 Qh5", Some(MoveClass::Blunder));
        assert_eq!(check("What a blunder! That was a mistake.", &blunder), Checked::True);
        let inaccuracy = ctx("e4 e5 Qh5", Some(MoveClass::Inaccuracy));
        assert_eq!(cut(&check("A blunder.", &inaccuracy)), 1, "an inaccuracy is no blunder");
    }

    #[test]
    fn quotes_and_numbered_lines_tell_of_other_games() {
        let c = ctx("e4 e5 Nf3", None);
        assert_eq!(
            check("Last time you opened with 1. d4 d5 2. c4 against me.", &c),
            Checked::True
        );
        assert_eq!(check("You told me: \"I love Bb5 and Qxf7\".", &c), Checked::True);
        assert_eq!(cut(&check("Now Qxf7 wins.", &c)), 1);
        // A recalled memory quoted whole, full stops and all, tells of that game.
        let greeting = "I remember: “On 22 November you lost to me by checkmate. You took my queen first.” Sit.";
        assert_eq!(check(greeting, &c), Checked::True);
        assert_eq!(
            cut(&check("I remember: “A fine game.” Checkmate!", &c)),
            1,
            "outside the quote"
        );
        assert_eq!(cut(&check("Ha \" Checkmate!", &c)), 1, "a stray quote hides nothing");
    }

    #[test]
    fn san_is_told_from_words() {
        for t in ["Nf3", "exd5", "O-O", "e8=Q+", "Qh4#", "Rxe1"] {
            assert!(looks_like_san(t), "{t}");
        }
        for t in ["Bad", "I", "Ann", "a", "e9", "Knight", "Be"] {
            assert!(!looks_like_san(t), "{t}");
        }
        // A square after "on" is a place; the same word alone, a move.
        assert_eq!(san_tokens("Nf6 attacks your knight on f3."), ["Nf6"]);
        assert_eq!(san_tokens("Why not f3 here?"), ["f3"]);
        assert_eq!(san_tokens("It attacks your pawns on d2, e3 and f2; f4 next."), ["f4"]);
    }
}
