//! Text for LLM move brains: the board from the player's side, and
//! pulling one move out of a free-form answer.

use shakmaty::san::San;
use shakmaty::{Color, File, Position, Rank, Square};

use crate::chess::Game;

/// FEN plus an ASCII board seen from `side` (uppercase White, lowercase
/// Black, `.` empty), with file and rank labels.
pub fn board_diagram(game: &Game, side: Color) -> String {
    let board = game.position().board();
    let ranks: Vec<Rank> = match side {
        Color::White => Rank::ALL.iter().rev().copied().collect(),
        Color::Black => Rank::ALL.to_vec(),
    };
    let files: Vec<File> = match side {
        Color::White => File::ALL.to_vec(),
        Color::Black => File::ALL.iter().rev().copied().collect(),
    };
    let mut out = format!("Position (FEN): {}\n\n", game.fen());
    for rank in &ranks {
        let row: Vec<String> = files
            .iter()
            .map(|f| {
                board
                    .piece_at(Square::from_coords(*f, *rank))
                    .map_or(".".to_string(), |p| p.char().to_string())
            })
            .collect();
        out.push_str(&format!("{} {}\n", rank.char(), row.join(" ")));
    }
    let labels: Vec<String> = files.iter().map(|f| f.char().to_string()).collect();
    out.push_str(&format!("  {}\n", labels.join(" ")));
    out
}

/// The move an answer commits to: a `make_move <uci>` command, else in the
/// `## Move` section (or the whole text if there is none) the first UCI-shaped
/// word, then the first SAN-shaped word, then the section's first word.
/// Legality is the caller's check; this only finds what was meant.
pub fn extract_move(answer: &str) -> Option<String> {
    if let Some(m) = after_command(answer, "make_move") {
        return Some(m);
    }
    let section = move_section(answer);
    let words: Vec<&str> = section
        .unwrap_or(answer)
        .split_whitespace()
        .map(trim_word)
        .filter(|w| !w.is_empty())
        .collect();
    let shaped = words
        .iter()
        .find(|w| is_uci(w))
        .or_else(|| words.iter().find(|w| is_san(w)));
    // Only a `## Move` section's first word is surely meant as a move; the
    // first word of free prose is not, and "no move found" is the truer reason.
    shaped
        .or_else(|| section.and_then(|_| words.first()))
        .map(|w| w.to_string())
}

fn move_section(answer: &str) -> Option<&str> {
    let lower = answer.to_ascii_lowercase();
    let start = lower.find("## move")? + "## move".len();
    let rest = &answer[start..];
    let end = rest.find("##").unwrap_or(rest.len());
    Some(&rest[..end])
}

fn after_command(answer: &str, command: &str) -> Option<String> {
    let at = answer.find(command)? + command.len();
    answer[at..]
        .split_whitespace()
        .next()
        .map(trim_word)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
}

/// Strips quotes, markdown and sentence punctuation around a move, keeping
/// the `+`, `#`, `=` and `-` that belong to SAN.
fn trim_word(w: &str) -> &str {
    w.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '*' | '"' | '\'' | '.' | ',' | ':' | ';' | '(' | ')' | '!' | '?'
        )
    })
}

fn is_uci(w: &str) -> bool {
    let b = w.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && square(b[2], b[3]) && b"qrbn".contains(&b[4]),
        _ => false,
    }
}

fn is_san(w: &str) -> bool {
    let bare = w.trim_end_matches(['+', '#']);
    // A lone square ("e4") parses as SAN, and so do castling and captures.
    !bare.is_empty() && bare.len() <= 7 && bare.parse::<San>().is_ok()
}

/// True if the answer asks for the board or the legal moves (a command
/// named without `make_move`: a model that moves has asked for nothing).
pub fn asks_for(answer: &str, command: &str) -> bool {
    answer.contains(command) && !answer.contains("make_move")
}

/// Side names as prompts say them.
pub fn side_word(c: Color) -> &'static str {
    match c {
        Color::White => "WHITE",
        Color::Black => "BLACK",
    }
}

/// Legal moves in SAN, comma separated: given with every turn, so a small
/// model picks from the list rather than inventing a move.
pub fn legal_san(game: &Game) -> String {
    let legal = game.legal_moves();
    let sans: Vec<String> = legal.into_iter().map(|(_, san)| san).collect();
    format!("Legal moves ({}):\n{}", sans.len(), sans.join(", "))
}

/// The turn number a move by the side to move will have.
pub fn move_number(game: &Game) -> u32 {
    game.position().fullmoves().get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_from_the_move_section_uci_before_san() {
        let a = "## Reasoning\nI like Nf3 but e4 is better.\n\n## Move\n**e2e4**\n";
        assert_eq!(extract_move(a).as_deref(), Some("e2e4"));
        let a = "## Reasoning\nDevelop.\n## Move\nNf3.";
        assert_eq!(extract_move(a).as_deref(), Some("Nf3"));
        let a = "## Move\nO-O-O";
        assert_eq!(extract_move(a).as_deref(), Some("O-O-O"));
        let a = "## Move\nexd8=Q+";
        assert_eq!(extract_move(a).as_deref(), Some("exd8=Q+"));
    }

    #[test]
    fn a_make_move_command_wins_and_prose_falls_back_to_shapes() {
        assert_eq!(extract_move("ok. make_move g1f3").as_deref(), Some("g1f3"));
        assert_eq!(extract_move("I will play the bold Qh5!").as_deref(), Some("Qh5"));
        assert_eq!(extract_move("## Move\nthe knight").as_deref(), Some("the"));
        assert_eq!(extract_move("The piece is a knight."), None);
        assert_eq!(extract_move("   "), None);
        // A real SmolLM2 answer: prose, then the legal list echoed back.
        let a = "Your move is to Nc3.\n\nYour legal moves are:\nNa3, Nc3, Nf3";
        assert_eq!(extract_move(a).as_deref(), Some("Nc3"));
    }

    #[test]
    fn the_board_is_drawn_from_the_players_side() {
        let game = Game::new(None).unwrap();
        let white = board_diagram(&game, Color::White);
        let black = board_diagram(&game, Color::Black);
        let first_row = |s: &str| s.lines().nth(2).unwrap().to_string();
        assert_eq!(first_row(&white), "8 r n b q k b n r");
        assert_eq!(first_row(&black), "1 R N B K Q B N R");
        assert!(white.ends_with("  a b c d e f g h\n") && black.ends_with("  h g f e d c b a\n"));
        assert!(legal_san(&game).starts_with("Legal moves (20):"));
    }
}
