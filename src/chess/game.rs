//! One game of chess: a start position, the moves played, and how it ended.
//! Wraps shakmaty and adds what it leaves to the caller: repetition and the
//! fifty-move rule (which need the history), resignation and agreed draws.

use std::collections::HashMap;

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Outcome, Position, Role};

use super::notation::{self, MoveError};

#[derive(Debug, thiserror::Error)]
#[error("invalid FEN: {0}")]
pub struct FenError(pub String);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    pub uci: String,
    pub san: String,
    pub fen_after: String,
    pub mover: Color,
    pub capture: Option<Role>,
    pub check: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameEnd {
    Checkmate {
        winner: Color,
    },
    Resignation {
        winner: Color,
    },
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
    Threefold,
    DrawAgreed,
    /// The player stopped coming back: no result either way.
    Abandoned,
    /// A clock ran out (a game played on a site with clocks): the other
    /// side won, or drew when it had no mating material.
    Timeout {
        winner: Option<Color>,
    },
}

impl GameEnd {
    pub fn winner(self) -> Option<Color> {
        match self {
            GameEnd::Checkmate { winner } | GameEnd::Resignation { winner } => Some(winner),
            GameEnd::Timeout { winner } => winner,
            _ => None,
        }
    }

    /// PGN result tag: `1-0`, `0-1`, `1/2-1/2`, or `*` for a game left
    /// unfinished.
    pub fn result(self) -> &'static str {
        match (self, self.winner()) {
            (GameEnd::Abandoned, _) => "*",
            (_, Some(Color::White)) => "1-0",
            (_, Some(Color::Black)) => "0-1",
            (_, None) => "1/2-1/2",
        }
    }

    /// Stable machine name, stored in SQL and sent to clients.
    pub fn termination(self) -> &'static str {
        match self {
            GameEnd::Checkmate { .. } => "checkmate",
            GameEnd::Resignation { .. } => "resignation",
            GameEnd::Stalemate => "stalemate",
            GameEnd::InsufficientMaterial => "insufficient_material",
            GameEnd::FiftyMoves => "fifty_moves",
            GameEnd::Threefold => "threefold_repetition",
            GameEnd::DrawAgreed => "draw_agreed",
            GameEnd::Abandoned => "abandoned",
            GameEnd::Timeout { .. } => "timeout",
        }
    }

    pub fn parse(termination: &str, result: &str) -> Option<GameEnd> {
        let winner = match result {
            "1-0" => Some(Color::White),
            "0-1" => Some(Color::Black),
            _ => None,
        };
        Some(match (termination, winner) {
            ("checkmate", Some(winner)) => GameEnd::Checkmate { winner },
            ("resignation", Some(winner)) => GameEnd::Resignation { winner },
            ("stalemate", None) => GameEnd::Stalemate,
            ("insufficient_material", None) => GameEnd::InsufficientMaterial,
            ("fifty_moves", None) => GameEnd::FiftyMoves,
            ("threefold_repetition", None) => GameEnd::Threefold,
            ("draw_agreed", None) => GameEnd::DrawAgreed,
            ("abandoned", None) if result == "*" => GameEnd::Abandoned,
            ("timeout", winner) => GameEnd::Timeout { winner },
            _ => return None,
        })
    }
}

#[derive(Debug, Clone)]
pub struct Game {
    start_fen: String,
    start: Chess,
    pos: Chess,
    moves: Vec<PlayedMove>,
    seen: HashMap<String, u8>,
    end: Option<GameEnd>,
}

impl Game {
    /// A new game from the standard start or from `fen`.
    pub fn new(fen: Option<&str>) -> Result<Game, FenError> {
        let start: Chess = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            None => Chess::default(),
            Some(text) => {
                if text.len() > 100 {
                    return Err(FenError("longer than any legal FEN".into()));
                }
                let fen = Fen::from_ascii(text.as_bytes()).map_err(|e| FenError(e.to_string()))?;
                fen.into_position(CastlingMode::Standard)
                    .map_err(|e| FenError(e.to_string()))?
            }
        };
        let start_fen = Fen::from_position(&start, EnPassantMode::Legal).to_string();
        let mut game = Game {
            start_fen,
            pos: start.clone(),
            start,
            moves: Vec::new(),
            seen: HashMap::new(),
            end: None,
        };
        game.remember_position();
        game.end = game.natural_end();
        Ok(game)
    }

    /// Rebuilds a game from its start and its moves in UCI, as stored in SQL.
    pub fn replay(fen: &str, ucis: &[String]) -> Result<Game, MoveError> {
        let mut game = Game::new(Some(fen)).map_err(|e| MoveError::Illegal {
            input: fen.chars().take(12).collect(),
            reason: e.to_string(),
        })?;
        for uci in ucis {
            let m = game.parse(uci)?;
            game.play(m);
        }
        Ok(game)
    }

    pub fn parse(&self, input: &str) -> Result<Move, MoveError> {
        notation::parse_move(&self.pos, input)
    }

    /// Plays a legal move (from [`Game::parse`] or an engine) and records it.
    pub fn play(&mut self, m: Move) -> PlayedMove {
        let mover = self.pos.turn();
        let capture = m.capture();
        let uci = notation::uci(m);
        let san = SanPlus::from_move_and_play_unchecked(&mut self.pos, m);
        let played = PlayedMove {
            uci,
            check: self.pos.is_check(),
            san: san.to_string(),
            fen_after: self.fen(),
            mover,
            capture,
        };
        self.moves.push(played.clone());
        self.remember_position();
        self.end = self.natural_end();
        played
    }

    pub fn finish(&mut self, end: GameEnd) {
        self.end.get_or_insert(end);
    }

    fn remember_position(&mut self) {
        let key = Epd::from_position(&self.pos, EnPassantMode::Legal).to_string();
        *self.seen.entry(key).or_default() += 1;
    }

    fn natural_end(&self) -> Option<GameEnd> {
        if let Outcome::Known(KnownOutcome::Decisive { winner }) = self.pos.outcome() {
            return Some(GameEnd::Checkmate { winner });
        }
        if self.pos.is_stalemate() {
            Some(GameEnd::Stalemate)
        } else if self.pos.is_insufficient_material() {
            Some(GameEnd::InsufficientMaterial)
        } else if self.pos.halfmoves() >= 100 {
            Some(GameEnd::FiftyMoves)
        } else if self.seen.values().any(|&n| n >= 3) {
            Some(GameEnd::Threefold)
        } else {
            None
        }
    }

    pub fn end(&self) -> Option<GameEnd> {
        self.end
    }

    pub fn position(&self) -> &Chess {
        &self.pos
    }

    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Chess {
        &self.start
    }

    pub fn start_fen(&self) -> &str {
        &self.start_fen
    }

    pub fn is_standard_start(&self) -> bool {
        self.start == Chess::default()
    }

    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// Move `i` numbered as a score sheet has it: "12. Qh5", "12... Nf6".
    pub fn move_label(&self, i: usize) -> Option<String> {
        let m = self.moves.get(i)?;
        let black_first = self.start.turn() == Color::Black;
        let number = self.start.fullmoves().get() as usize + (i + usize::from(black_first)) / 2;
        let dots = if m.mover == Color::White { "." } else { "..." };
        Some(format!("{number}{dots} {}", m.san))
    }

    /// The game as it was after its first `keep` moves.
    pub fn truncated(&self, keep: usize) -> Result<Game, MoveError> {
        let ucis: Vec<String> = self.moves.iter().take(keep).map(|m| m.uci.clone()).collect();
        Game::replay(&self.start_fen, &ucis)
    }

    /// Legal moves as (UCI, SAN) pairs; empty once the game is over.
    pub fn legal_moves(&self) -> Vec<(String, String)> {
        if self.end.is_some() {
            return Vec::new();
        }
        self.pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                let uci = notation::uci(m);
                (uci, SanPlus::from_move(self.pos.clone(), m).to_string())
            })
            .collect()
    }

    /// Material balance in pawns from `color`'s side (P=1, N=B=3, R=5, Q=9).
    pub fn material_balance(&self, color: Color) -> i32 {
        let board = self.pos.board();
        let value = |c: Color| -> i32 {
            [
                (Role::Pawn, 1),
                (Role::Knight, 3),
                (Role::Bishop, 3),
                (Role::Rook, 5),
                (Role::Queen, 9),
            ]
            .iter()
            .map(|&(role, v)| v * (board.by_piece(role.of(c)).count() as i32))
            .sum()
        };
        value(color) - value(!color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(game: &mut Game, moves: &[&str]) {
        for m in moves {
            let mv = game.parse(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            game.play(mv);
        }
    }

    #[test]
    fn fools_mate_is_checkmate_for_black() {
        let mut game = Game::new(None).unwrap();
        play_all(&mut game, &["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(game.end(), Some(GameEnd::Checkmate { winner: Color::Black }));
        assert_eq!(game.end().unwrap().result(), "0-1");
        assert!(game.legal_moves().is_empty());
        assert_eq!(game.moves()[3].san, "Qh4#");
    }

    #[test]
    fn threefold_repetition_ends_the_game() {
        let mut game = Game::new(None).unwrap();
        play_all(&mut game, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
        assert_eq!(game.end(), None);
        play_all(&mut game, &["Ng8"]);
        assert_eq!(game.end(), Some(GameEnd::Threefold));
    }

    #[test]
    fn stalemate_insufficient_and_fifty_moves_from_fen() {
        let stalemate = Game::new(Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")).unwrap();
        assert_eq!(stalemate.end(), Some(GameEnd::Stalemate));
        let bare = Game::new(Some("8/8/4k3/8/8/3K4/8/8 w - - 0 1")).unwrap();
        assert_eq!(bare.end(), Some(GameEnd::InsufficientMaterial));
        let mut slow = Game::new(Some("8/8/4k3/8/8/3K4/8/R7 w - - 99 80")).unwrap();
        play_all(&mut slow, &["Ra2"]);
        assert_eq!(slow.end(), Some(GameEnd::FiftyMoves));
    }

    #[test]
    fn bad_fen_is_an_error() {
        for bad in [
            "not a fen",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        ] {
            assert!(Game::new(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn replay_reaches_the_same_position() {
        let mut game = Game::new(None).unwrap();
        play_all(
            &mut game,
            &["e4", "c5", "Nf3", "d6", "O-O-O"]
                .iter()
                .take(4)
                .copied()
                .collect::<Vec<_>>(),
        );
        let ucis: Vec<String> = game.moves().iter().map(|m| m.uci.clone()).collect();
        let again = Game::replay(game.start_fen(), &ucis).unwrap();
        assert_eq!(again.fen(), game.fen());
    }

    #[test]
    fn termination_round_trips() {
        let ends = [
            GameEnd::Checkmate { winner: Color::White },
            GameEnd::Resignation { winner: Color::Black },
            GameEnd::Stalemate,
            GameEnd::InsufficientMaterial,
            GameEnd::FiftyMoves,
            GameEnd::Threefold,
            GameEnd::DrawAgreed,
            GameEnd::Abandoned,
            GameEnd::Timeout {
                winner: Some(Color::Black),
            },
            GameEnd::Timeout { winner: None },
        ];
        for end in ends {
            assert_eq!(GameEnd::parse(end.termination(), end.result()), Some(end));
        }
    }
}
