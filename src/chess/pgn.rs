//! PGN export (and the small reader the tests use to replay an export).

use super::game::Game;

/// Seven-tag-roster headers plus SetUp/FEN for a non-standard start.
pub struct PgnHeaders {
    pub event: String,
    pub site: String,
    pub date: String,
    pub white: String,
    pub black: String,
    pub extra: Vec<(String, String)>,
}

/// A comment before a move: `before` is the move's index (0: before the
/// first), `text` what it says (a hint asked for, say).
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    pub before: usize,
    pub text: String,
}

/// What follows a move in an annotated PGN: its glyph as a NAG (`$2` a
/// mistake) and a comment (`[%eval 0.35]` and words).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MoveNote {
    pub nag: Option<u8>,
    pub comment: Option<String>,
}

/// The NAGs of lichess's move judgements.
pub const NAG_MISTAKE: u8 = 2;
pub const NAG_BLUNDER: u8 = 4;
pub const NAG_DUBIOUS: u8 = 6;

pub fn write(headers: &PgnHeaders, game: &Game) -> String {
    write_with(headers, game, &[])
}

/// The PGN with `comments` in its movetext.
pub fn write_with(headers: &PgnHeaders, game: &Game, comments: &[Comment]) -> String {
    write_annotated(headers, game, comments, &[])
}

/// The PGN with `comments` before moves and `notes[i]` after move `i`.
pub fn write_annotated(headers: &PgnHeaders, game: &Game, comments: &[Comment], notes: &[MoveNote]) -> String {
    let result = game.end().map_or("*", |e| e.result());
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| {
        out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    };
    tag("Event", &headers.event);
    tag("Site", &headers.site);
    tag("Date", &headers.date);
    tag("Round", "-");
    tag("White", &headers.white);
    tag("Black", &headers.black);
    tag("Result", result);
    if !game.is_standard_start() {
        tag("SetUp", "1");
        tag("FEN", game.start_fen());
    }
    if let Some(end) = game.end() {
        tag("Termination", end.termination());
    }
    for (k, v) in &headers.extra {
        tag(k, v);
    }
    out.push('\n');
    out.push_str(&movetext(game, comments, notes));
    out.push_str(result);
    out.push('\n');
    out
}

fn movetext(game: &Game, comments: &[Comment], notes: &[MoveNote]) -> String {
    let start_fen = game.start_fen();
    let mut fields = start_fen.split(' ').skip(1);
    let white_first = fields.next() != Some("b");
    let mut number: u32 = fields.nth(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut text = String::new();
    let comment_at = |i: usize, text: &mut String| {
        let mut any = false;
        for c in comments.iter().filter(|c| c.before == i) {
            text.push_str(&braced(&c.text));
            any = true;
        }
        // The note after the move before this one also interrupts the
        // moves: Black's move is then numbered again ("3... Nf6").
        any || i
            .checked_sub(1)
            .and_then(|p| notes.get(p))
            .is_some_and(|n| n.comment.is_some())
    };
    for (i, m) in game.moves().iter().enumerate() {
        let white_to_move = (i % 2 == 0) == white_first;
        let commented = comment_at(i, &mut text);
        if white_to_move {
            text.push_str(&format!("{number}. "));
        } else if i == 0 || commented {
            text.push_str(&format!("{number}... "));
        }
        text.push_str(&m.san);
        text.push(' ');
        if let Some(note) = notes.get(i) {
            if let Some(nag) = note.nag {
                text.push_str(&format!("${nag} "));
            }
            if let Some(comment) = &note.comment {
                text.push_str(&braced(comment));
            }
        }
        if !white_to_move {
            number += 1;
        }
    }
    comment_at(game.moves().len(), &mut text);
    text
}

/// `{text} `: a comment ends at the first `}`, so none inside.
fn braced(text: &str) -> String {
    format!("{{{}}} ", text.replace('{', "(").replace('}', ")"))
}

/// A tag value as the PGN standard (8.1.1) allows it: printing characters
/// only (a control character becomes a space), `\` and `"` escaped.
fn escape(v: &str) -> String {
    v.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// Reads the SAN moves of a PGN's movetext, past its comments and NAGs (no variations).
pub fn san_moves(pgn: &str) -> Vec<String> {
    let movetext: String = pgn
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut plain = String::new();
    let mut in_comment = false;
    for c in movetext.chars() {
        match c {
            '{' => in_comment = true,
            '}' => in_comment = false,
            c if !in_comment => plain.push(c),
            _ => {}
        }
    }
    plain
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && !t.starts_with('$') && !matches!(*t, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
        .collect()
}

/// Reads a header's value.
pub fn header(pgn: &str, name: &str) -> Option<String> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix("\"]").map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> PgnHeaders {
        PgnHeaders {
            event: "Casual".into(),
            site: "kibitz".into(),
            date: "2026.11.21".into(),
            white: "Ann".into(),
            black: "Bo \"the\" Bot".into(),
            extra: vec![],
        }
    }

    #[test]
    fn comments_stand_before_their_move_and_the_moves_still_read() {
        let mut game = Game::new(None).unwrap();
        for m in ["e4", "e5", "Nf3", "Nc6"] {
            let mv = game.parse(m).unwrap();
            game.play(mv);
        }
        let comments = [
            Comment {
                before: 1,
                text: "hint: e5".into(),
            },
            Comment {
                before: 2,
                text: "hint: Nf3 {sic}".into(),
            },
            Comment {
                before: 4,
                text: "hint: Bb5".into(),
            },
        ];
        let pgn = write_with(&headers(), &game, &comments);
        assert!(
            pgn.contains("1. e4 {hint: e5} 1... e5 {hint: Nf3 (sic)} 2. Nf3 Nc6 {hint: Bb5} *"),
            "{pgn}"
        );
        assert_eq!(san_moves(&pgn), ["e4", "e5", "Nf3", "Nc6"]);
    }

    #[test]
    fn notes_follow_their_moves_with_nags_and_black_is_numbered_again() {
        let mut game = Game::new(None).unwrap();
        for m in ["e4", "e5", "Qh5", "Nc6"] {
            let mv = game.parse(m).unwrap();
            game.play(mv);
        }
        let note = |nag: Option<u8>, comment: &str| MoveNote {
            nag,
            comment: Some(comment.into()),
        };
        let notes = [
            note(None, "[%eval 0.35]"),
            note(None, "[%eval 0.30]"),
            note(Some(NAG_DUBIOUS), "[%eval 0.00] Margot: \"{Bold}\""),
            MoveNote::default(),
        ];
        let pgn = write_annotated(&headers(), &game, &[], &notes);
        assert!(
            pgn.contains(
                "1. e4 {[%eval 0.35]} 1... e5 {[%eval 0.30]} 2. Qh5 $6 {[%eval 0.00] Margot: \"(Bold)\"} 2... Nc6 *"
            ),
            "{pgn}"
        );
        assert_eq!(san_moves(&pgn), ["e4", "e5", "Qh5", "Nc6"]);
    }

    #[test]
    fn export_replays_to_the_same_position() {
        let mut game = Game::new(None).unwrap();
        for m in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"] {
            let mv = game.parse(m).unwrap();
            game.play(mv);
        }
        let pgn = write(&headers(), &game);
        assert!(pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 *"), "{pgn}");
        assert!(pgn.contains(r#"[Black "Bo \"the\" Bot"]"#));
        let mut again = Game::new(None).unwrap();
        for san in san_moves(&pgn) {
            let mv = again.parse(&san).unwrap();
            again.play(mv);
        }
        assert_eq!(again.fen(), game.fen());
    }

    #[test]
    fn a_tag_value_stays_one_printable_line() {
        let game = Game::new(None).unwrap();
        let mut h = headers();
        h.white = "Mal\n[Result \"0-1\"]\tlory\\".into();
        let pgn = write(&h, &game);
        assert!(pgn.contains(r#"[White "Mal [Result \"0-1\"] lory\\"]"#), "{pgn}");
        assert_eq!(pgn.lines().filter(|l| l.starts_with("[Result")).count(), 1, "{pgn}");
    }

    #[test]
    fn black_to_move_start_numbers_from_the_fen() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let mut game = Game::new(Some(fen)).unwrap();
        let mv = game.parse("c5").unwrap();
        game.play(mv);
        let mv = game.parse("Nf3").unwrap();
        game.play(mv);
        let pgn = write(&headers(), &game);
        assert!(pgn.contains("1... c5 2. Nf3 *"), "{pgn}");
        assert_eq!(header(&pgn, "FEN").as_deref(), Some(fen));
        assert_eq!(header(&pgn, "SetUp").as_deref(), Some("1"));
    }
}
