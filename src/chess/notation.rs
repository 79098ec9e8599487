//! Two-stage move parsing: first "is this a move at all"
//! (UCI or SAN), then "is it legal here". Each stage has its own error so a
//! person (or a model) learns exactly what was wrong.

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Role, Square};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("'{input}' is not a recognised move: use UCI (e.g. e2e4, e7e8q) or SAN (e.g. e4, Nf3, exd5, O-O, e8=Q)")]
    Unrecognised { input: String },
    #[error("'{input}' is not legal in this position: {reason}")]
    Illegal { input: String, reason: String },
}

/// Longest text we even try to parse; anything longer is not a move.
const MAX_MOVE_TEXT: usize = 12;

pub fn parse_move(pos: &Chess, input: &str) -> Result<Move, MoveError> {
    let text = input.trim();
    let unrecognised = || MoveError::Unrecognised { input: truncate(text) };
    if text.is_empty() || text.len() > MAX_MOVE_TEXT {
        return Err(unrecognised());
    }
    if let Ok(uci) = UciMove::from_ascii(text.as_bytes()) {
        return uci.to_move(pos).map_err(|_| illegal(text, uci_reason(pos, &uci)));
    }
    let san = SanPlus::from_ascii(text.as_bytes())
        .map(|s| s.san)
        .or_else(|_| San::from_ascii(text.as_bytes()))
        .map_err(|_| unrecognised())?;
    san.to_move(pos).map_err(|e| {
        let reason = match e {
            SanError::AmbiguousSan => "it is ambiguous: add the file or rank of the piece".into(),
            SanError::IllegalSan => san_reason(pos, &san),
        };
        illegal(text, reason)
    })
}

fn illegal(input: &str, reason: String) -> MoveError {
    MoveError::Illegal {
        input: truncate(input),
        reason,
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(MAX_MOVE_TEXT).collect()
}

fn uci_reason(pos: &Chess, uci: &UciMove) -> String {
    let UciMove::Normal { from, to, .. } = *uci else {
        return "that kind of move does not exist in standard chess".into();
    };
    match pos.board().piece_at(from) {
        None => format!("there is no piece on {from}"),
        Some(p) if p.color != pos.turn() => {
            format!("the piece on {from} belongs to {}", side_name(p.color))
        }
        Some(p) => piece_reason(pos, p.role, from, to),
    }
}

fn piece_reason(pos: &Chess, role: Role, from: Square, to: Square) -> String {
    let name = role_name(role);
    let reaches = pos.legal_moves().iter().any(|m| m.from() == Some(from));
    if pos.is_check() {
        format!("your king is in check and the {name} on {from} to {to} does not answer it")
    } else if !reaches {
        format!("the {name} on {from} has no legal move (pinned or blocked)")
    } else {
        format!("the {name} on {from} cannot move to {to}")
    }
}

fn san_reason(pos: &Chess, san: &San) -> String {
    match san {
        San::Normal { role, to, .. } => {
            if pos.is_check() {
                format!(
                    "your king is in check and no {} move to {to} answers it",
                    role_name(*role)
                )
            } else {
                format!("no {} of yours can move to {to}", role_name(*role))
            }
        }
        San::Castle(_) => "castling is not possible now".into(),
        San::Put { .. } | San::Null => "that kind of move does not exist in standard chess".into(),
    }
}

/// A legal move in UCI (castling as the king's two-square move).
pub fn uci(m: Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

/// Whether `text` names the move `san` ("Bxh7+" in "his trick is the
/// Greek gift: Bxh7+, Ng5+"; "h5" in "h4-h5"), ignoring move numbers, check
/// marks and punctuation. Short pawn moves ("e4") name too many things to
/// count: a move names itself only with a piece letter, a capture or a
/// promotion.
pub fn mentions_move(text: &str, san: &str) -> bool {
    let bare = |token: &str| -> String {
        token
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .trim_end_matches(|c: char| "+#!?,.;:)'\"".contains(c))
            .to_string()
    };
    let wanted = bare(san);
    if wanted.len() < 3 {
        return false;
    }
    text.split(|c: char| c.is_whitespace() || c == '-' || c == '(' || c == '/')
        .any(|token| bare(token) == wanted)
}

/// Whether `text` names the move `san` as written (`mentions_move`) or in
/// the words players write: the piece and the square it went to ("her
/// knight sat on d4", "a bishop on the long diagonal to g7" is too far:
/// within five words), or the castling ("castled long", "castles
/// queenside", "short castling").
pub fn names_move(text: &str, san: &str) -> bool {
    mentions_move(text, san) || castles_in_words(text, san) || piece_on_square(text, san)
}

/// How many words may stand between a piece and its square.
const PIECE_TO_SQUARE: usize = 5;

fn words_of(text: &str) -> Vec<String> {
    // "queen-side" is "queenside".
    text.replace("-side", "side")
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn piece_on_square(text: &str, san: &str) -> bool {
    let role = match san.chars().next() {
        Some('N') => "knight",
        Some('B') => "bishop",
        Some('R') => "rook",
        Some('Q') => "queen",
        Some('K') => "king",
        _ => return false,
    };
    let Some(square) = destination(san) else { return false };
    let words = words_of(text);
    words.iter().enumerate().any(|(i, w)| {
        w.trim_end_matches('s') == role
            && words[i + 1..]
                .iter()
                .take(PIECE_TO_SQUARE)
                .any(|later| later == &square)
    })
}

/// The square a SAN move goes to ("d4" of "Nxd4+").
fn destination(san: &str) -> Option<String> {
    let b = san.as_bytes();
    (1..b.len()).rev().find_map(|i| {
        let (file, rank) = (b[i - 1], b[i]);
        ((b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank))
            .then(|| format!("{}{}", file as char, rank as char))
    })
}

fn castles_in_words(text: &str, san: &str) -> bool {
    let bare = san.trim_end_matches(|c: char| "+#!?".contains(c));
    let sides: &[&str] = match bare {
        "O-O-O" | "0-0-0" => &["long", "queenside"],
        "O-O" | "0-0" => &["short", "kingside"],
        _ => return false,
    };
    let words = words_of(text);
    words.iter().enumerate().any(|(i, w)| {
        w.starts_with("castl")
            && words[i.saturating_sub(2)..(i + 3).min(words.len())]
                .iter()
                .any(|near| sides.contains(&near.as_str()))
    })
}

pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

pub fn side_name(color: shakmaty::Color) -> &'static str {
    if color.is_white() { "White" } else { "Black" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Chess {
        Chess::default()
    }

    #[test]
    fn accepts_uci_and_san() {
        let pos = start();
        assert!(parse_move(&pos, "e2e4").is_ok());
        assert!(parse_move(&pos, "Nf3").is_ok());
        assert!(parse_move(&pos, " e4 ").is_ok());
    }

    #[test]
    fn gibberish_is_unrecognised_not_illegal() {
        for bad in ["hello", "", "z9z9", "e2-e4-e6", "Qxx"] {
            let err = parse_move(&start(), bad).unwrap_err();
            assert!(matches!(err, MoveError::Unrecognised { .. }), "{bad}: {err:?}");
        }
    }

    #[test]
    fn illegal_moves_say_why() {
        let pos = start();
        let empty = parse_move(&pos, "e3e4").unwrap_err().to_string();
        assert!(empty.contains("no piece on e3"), "{empty}");
        let theirs = parse_move(&pos, "e7e5").unwrap_err().to_string();
        assert!(theirs.contains("belongs to Black"), "{theirs}");
        let far = parse_move(&pos, "e2e5").unwrap_err().to_string();
        assert!(far.contains("cannot move to e5"), "{far}");
        let san = parse_move(&pos, "Qh5").unwrap_err().to_string();
        assert!(san.contains("no queen of yours can move to h5"), "{san}");
    }

    #[test]
    fn a_text_names_a_move_by_its_san_whatever_its_marks() {
        let greek = "His favourite trick is the Greek gift: Bxh7+, Ng5+, Qh5.";
        assert!(mentions_move(greek, "Bxh7+"));
        assert!(mentions_move(greek, "Ng5"));
        assert!(mentions_move("took the b2 pawn (...Qxb2) and lost", "Qxb2"));
        assert!(mentions_move("24.Rxe6! won at once", "Rxe6"));
        assert!(!mentions_move(greek, "Bxh2+"), "another square");
        assert!(!mentions_move("Meets 1.e4 with the French", "e4"), "too short to tell");
        assert!(!mentions_move("Nf3 and g3", "Nf"));
    }

    #[test]
    fn a_move_is_named_in_words_too() {
        let outpost = "Builds her whole game round a knight on a hole: d4 as Black.";
        assert!(names_move(outpost, "Nd4") && names_move("Her knight sat on d4", "Nxd4+"));
        assert!(!names_move(outpost, "Bd4"), "another piece");
        assert!(!names_move(outpost, "Nd5"), "another square");
        assert!(
            !names_move("a knight, a bishop, a rook and then much later on d4", "Nd4"),
            "too far apart"
        );
        assert!(names_move("Oskar castled long and marched his pawns", "O-O-O"));
        assert!(names_move("Castles queenside and pushes g4-g5", "O-O-O"));
        assert!(
            !names_move("Castles queenside and pushes g4-g5", "O-O"),
            "the other wing"
        );
        assert!(names_move("always short castling, never long", "O-O"));
        assert!(
            !names_move("a queen on the board", "e4"),
            "pawn moves need their letters"
        );
    }
}
