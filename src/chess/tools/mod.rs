//! Board tools (seed 000): deterministic answers a brain asks for instead of
//! guessing. Every tool is reached through one call, `analyze_board {action,
//! ...}`, as an LLM would make it; results are typed and also render as
//! compact text for prompts. This first set covers perception (legal_moves,
//! captures, score), move safety (eval), projection (project), the
//! opponent's last move (classify_last_move, which needs the game), our
//! tactics (find_threats, and two-move ones: deep_threats), theirs with our
//! answers (prophylaxis), candidates side by side (compare), and what each
//! piece is doing (deep_analysis), and the position in numbers (position_eval).

mod compare;
mod last_move;
mod perception;
mod position;
mod safety;
mod structure;
pub mod themes;
mod threats;

use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Role};

pub use compare::Candidate;
pub use last_move::{Attacked, LastMove};
pub use perception::{Capture, LegalMoves, Material, PieceMoves};
pub use position::{PositionEval, SideEval};
pub use safety::{MoveSafety, see};
#[cfg(test)]
use shakmaty::{Color, Square};
pub use structure::PieceRole;
pub use threats::{Combination, Defence, MAX_THREATS, Prophylaxis, Threat};

use super::{Game, notation};

/// One `analyze_board` call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolCall {
    LegalMoves,
    Captures,
    Score,
    /// Safety of each candidate move (UCI or SAN).
    Eval {
        moves: Vec<String>,
    },
    /// Play up to six moves (both sides, in order) and describe the result.
    Project {
        moves: Vec<String>,
    },
    /// The opponent's last move: its kind, what it attacks, what it threatens.
    ClassifyLastMove,
    /// Our moves that create tactics, best first.
    FindThreats,
    /// The opponent's threats and our best answers.
    Prophylaxis,
    /// Candidate moves side by side.
    Compare {
        moves: Vec<String>,
    },
    /// Setup move + follow-up tactic.
    DeepThreats,
    /// What each of our pieces attacks and defends; sole defenders.
    DeepAnalysis,
    /// King safety, mobility, pawn structure, pins, batteries, forks.
    PositionEval,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", content = "result", rename_all = "snake_case")]
pub enum ToolResult {
    LegalMoves(LegalMoves),
    Captures(Vec<Capture>),
    Score(Material),
    Eval(Vec<MoveSafety>),
    Project(Projection),
    ClassifyLastMove(LastMove),
    FindThreats(Vec<Threat>),
    Prophylaxis(Prophylaxis),
    Compare(Vec<Candidate>),
    DeepThreats(Vec<Combination>),
    DeepAnalysis(Vec<PieceRole>),
    PositionEval(PositionEval),
}

/// Where a line of moves leads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// The moves as played, in SAN.
    pub line: Vec<String>,
    pub fen: String,
    pub material: Material,
    pub check: bool,
    pub checkmate: bool,
    pub stalemate: bool,
}

/// The longest line `project` plays (seed 000).
pub const MAX_PROJECTION: usize = 6;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToolError {
    #[error("'{0}' is not a legal move here")]
    BadMove(String),
    #[error("give at least one move to evaluate")]
    NoMoves,
    #[error("project plays at most {MAX_PROJECTION} moves")]
    TooLong,
    #[error("no move has been played yet")]
    NoLastMove,
}

/// Runs one tool on a game: the position now, and the move that led to it.
pub fn analyze_game(game: &Game, call: &ToolCall) -> Result<ToolResult, ToolError> {
    let ToolCall::ClassifyLastMove = call else {
        return analyze_board(game.position(), call);
    };
    let (last, earlier) = game.moves().split_last().ok_or(ToolError::NoLastMove)?;
    let ucis: Vec<String> = earlier.iter().map(|m| m.uci.clone()).collect();
    let before = Game::replay(game.start_fen(), &ucis).map_err(|_| ToolError::NoLastMove)?;
    let m = parse_move(before.position(), &last.uci)?;
    let classified = last_move::classify(before.position(), m, game.position());
    Ok(ToolResult::ClassifyLastMove(classified))
}

/// Runs one tool on `pos` (classify_last_move needs `analyze_game`).
pub fn analyze_board(pos: &Chess, call: &ToolCall) -> Result<ToolResult, ToolError> {
    Ok(match call {
        ToolCall::ClassifyLastMove => return Err(ToolError::NoLastMove),
        ToolCall::FindThreats => ToolResult::FindThreats(threats::find_threats(pos)),
        ToolCall::Prophylaxis => ToolResult::Prophylaxis(threats::prophylaxis(pos)),
        ToolCall::DeepThreats => ToolResult::DeepThreats(threats::deep_threats(pos)),
        ToolCall::DeepAnalysis => ToolResult::DeepAnalysis(structure::deep_analysis(pos)),
        ToolCall::PositionEval => ToolResult::PositionEval(position::position_eval(pos)),
        ToolCall::Compare { moves } if moves.is_empty() => return Err(ToolError::NoMoves),
        ToolCall::Compare { moves } => {
            let moves = moves
                .iter()
                .map(|m| parse_move(pos, m))
                .collect::<Result<Vec<_>, _>>()?;
            ToolResult::Compare(compare::compare(pos, &moves))
        }
        ToolCall::LegalMoves => ToolResult::LegalMoves(perception::legal_moves(pos)),
        ToolCall::Captures => ToolResult::Captures(perception::captures(pos)),
        ToolCall::Score => ToolResult::Score(perception::material(pos)),
        ToolCall::Eval { moves } if moves.is_empty() => return Err(ToolError::NoMoves),
        ToolCall::Eval { moves } => ToolResult::Eval(
            moves
                .iter()
                .map(|m| parse_move(pos, m).map(|mv| safety::eval(pos, mv)))
                .collect::<Result<_, _>>()?,
        ),
        ToolCall::Project { moves } => ToolResult::Project(project(pos, moves)?),
    })
}

fn project(pos: &Chess, moves: &[String]) -> Result<Projection, ToolError> {
    if moves.is_empty() {
        return Err(ToolError::NoMoves);
    }
    if moves.len() > MAX_PROJECTION {
        return Err(ToolError::TooLong);
    }
    let mut at = pos.clone();
    let mut line = Vec::new();
    for text in moves {
        let m = parse_move(&at, text)?;
        line.push(san(&at, m));
        at.play_unchecked(m);
    }
    Ok(Projection {
        line,
        fen: shakmaty::fen::Fen::from_position(&at, shakmaty::EnPassantMode::Legal).to_string(),
        material: perception::material(&at),
        check: at.is_check(),
        checkmate: at.is_checkmate(),
        stalemate: at.is_stalemate(),
    })
}

impl ToolResult {
    /// Compact text for a prompt: one fact a line.
    pub fn to_text(&self) -> String {
        match self {
            ToolResult::LegalMoves(l) => l.to_text(),
            ToolResult::Captures(c) if c.is_empty() => "no captures".into(),
            ToolResult::Captures(c) => c.iter().map(Capture::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Score(m) => m.to_text(),
            ToolResult::Eval(e) => e.iter().map(MoveSafety::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Project(p) => {
                let state = match (p.checkmate, p.stalemate, p.check) {
                    (true, _, _) => "checkmate",
                    (_, true, _) => "stalemate",
                    (_, _, true) => "check",
                    _ => "play on",
                };
                format!(
                    "after {}: {state}; {}; FEN {}",
                    p.line.join(" "),
                    p.material.to_text(),
                    p.fen
                )
            }
            ToolResult::ClassifyLastMove(l) => l.to_text(),
            ToolResult::FindThreats(t) if t.is_empty() => "no tactical threats".into(),
            ToolResult::FindThreats(t) => t.iter().map(Threat::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::Prophylaxis(p) => p.to_text(),
            ToolResult::Compare(c) => compare::table(c),
            ToolResult::DeepThreats(c) if c.is_empty() => "no two-move combinations".into(),
            ToolResult::DeepThreats(c) => c.iter().map(Combination::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::DeepAnalysis(p) => p.iter().map(PieceRole::to_text).collect::<Vec<_>>().join("\n"),
            ToolResult::PositionEval(e) => e.to_text(),
        }
    }
}

/// A move in UCI or SAN, checked for legality.
fn parse_move(pos: &Chess, text: &str) -> Result<Move, ToolError> {
    notation::parse_move(pos, text).map_err(|_| ToolError::BadMove(text.chars().take(12).collect()))
}

fn san(pos: &Chess, m: Move) -> String {
    shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string()
}

fn uci(m: Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

/// Material values of seed 000: P=1, N=3, B=3, R=5, Q=9.
pub fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        // Never traded: capturing into a defended square with the king is illegal.
        Role::King => 100,
    }
}

fn name(role: Role) -> &'static str {
    notation::role_name(role)
}

/// A position from a FEN, for tests.
#[cfg(test)]
pub(crate) fn test_position(fen: &str) -> Chess {
    use shakmaty::fen::Fen;
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::test_position as pos;
    use super::*;

    fn eval(fen: &str, mv: &str) -> MoveSafety {
        let call = ToolCall::Eval { moves: vec![mv.into()] };
        match analyze_board(&pos(fen), &call).unwrap() {
            ToolResult::Eval(mut e) => e.remove(0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn calls_arrive_as_json_with_an_action() {
        let call: ToolCall = serde_json::from_str(r#"{"action":"eval","moves":["e2e4","Nf3"]}"#).unwrap();
        assert_eq!(
            call,
            ToolCall::Eval {
                moves: vec!["e2e4".into(), "Nf3".into()]
            }
        );
        assert!(serde_json::from_str::<ToolCall>(r#"{"action":"dance"}"#).is_err());
        let start = Chess::default();
        let bad = ToolCall::Eval {
            moves: vec!["e5".into()],
        };
        assert_eq!(analyze_board(&start, &bad), Err(ToolError::BadMove("e5".into())));
    }

    #[test]
    fn perception_at_the_start() {
        let start = Chess::default();
        let ToolResult::LegalMoves(l) = analyze_board(&start, &ToolCall::LegalMoves).unwrap() else {
            panic!()
        };
        let count = |g: &[PieceMoves]| g.iter().map(|p| p.moves.len()).sum::<usize>();
        assert_eq!((count(&l.to_move), count(&l.opponent)), (20, 20));
        assert!(
            l.to_move
                .iter()
                .any(|g| g.piece == "knight" && g.square == "g1" && g.moves == ["Nf3", "Nh3"])
        );
        let ToolResult::Score(m) = analyze_board(&start, &ToolCall::Score).unwrap() else {
            panic!()
        };
        assert_eq!((m.white, m.black, m.balance), (39, 39, 0));
        let ToolResult::Captures(c) = analyze_board(&start, &ToolCall::Captures).unwrap() else {
            panic!()
        };
        assert!(c.is_empty());
    }

    #[test]
    fn captures_name_the_victim() {
        // 1.e4 d5: exd5 is on offer.
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let ToolResult::Captures(c) = analyze_board(&p, &ToolCall::Captures).unwrap() else {
            panic!()
        };
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].san.as_str(), c[0].captured), ("exd5", "pawn"));
    }

    #[test]
    fn a_hanging_queen_and_a_missed_mate() {
        let fen = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";
        let blunder = eval(fen, "Qd4");
        assert!(blunder.hangs && blunder.see == 9, "{blunder:?}");
        assert_eq!(blunder.attackers, ["rook"]);
        let mate = eval(fen, "Qxd8#");
        assert!(mate.mates && !mate.hangs, "{mate:?}");
        assert!(mate.to_text().contains("checkmate"));
    }

    #[test]
    fn fools_mate_is_seen_coming() {
        // 1.f3 e5: 2.g4?? allows Qh4#.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2";
        assert_eq!(eval(fen, "g4").allows_mate_in_one.as_deref(), Some("Qh4#"));
        assert_eq!(eval(fen, "e4").allows_mate_in_one, None);
    }

    #[test]
    fn projection_plays_a_line_for_both_sides() {
        let line = ["f3", "e7e5", "g4", "Qh4"].map(String::from).to_vec();
        let ToolResult::Project(p) = analyze_board(&Chess::default(), &ToolCall::Project { moves: line }).unwrap()
        else {
            panic!()
        };
        assert_eq!(p.line, ["f3", "e5", "g4", "Qh4#"]);
        assert!(p.checkmate && p.check && !p.stalemate);
        assert!(
            ToolResult::Project(p)
                .to_text()
                .starts_with("after f3 e5 g4 Qh4#: checkmate")
        );
        let long = ToolCall::Project {
            moves: vec!["e4".into(); 7],
        };
        assert_eq!(analyze_board(&Chess::default(), &long), Err(ToolError::TooLong));
        let illegal = ToolCall::Project {
            moves: vec!["e4".into(), "e4".into()],
        };
        assert_eq!(
            analyze_board(&Chess::default(), &illegal),
            Err(ToolError::BadMove("e4".into()))
        );
    }

    #[test]
    fn the_last_move_is_classified_with_its_threats() {
        let mut game = Game::new(None).unwrap();
        for san in ["e4", "e5", "Bc4", "Nc6", "Qh5"] {
            let m = game.parse(san).unwrap();
            game.play(m);
        }
        let ToolResult::ClassifyLastMove(l) = analyze_game(&game, &ToolCall::ClassifyLastMove).unwrap() else {
            panic!()
        };
        assert_eq!(l.san, "Qh5");
        assert!(l.kinds.contains(&"piece move"));
        assert_eq!(l.threatens_mate.as_deref(), Some("Qxf7#"), "the scholar's mate threat");
        assert!(
            l.newly_attacked
                .iter()
                .any(|a| a.square == "e5" && a.piece == "pawn" && !a.hangs),
            "{l:?}"
        );
        let fresh = Game::new(None).unwrap();
        assert_eq!(
            analyze_game(&fresh, &ToolCall::ClassifyLastMove),
            Err(ToolError::NoLastMove)
        );
    }

    #[test]
    fn threats_are_ranked_mate_first() {
        let mate = pos("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
        let ToolResult::FindThreats(t) = analyze_board(&mate, &ToolCall::FindThreats).unwrap() else {
            panic!()
        };
        assert_eq!(t[0].san, "Qxd8#");
        assert!(t[0].tactics.contains(&"mate"), "{t:?}");
        let fork = pos("r3k3/8/8/3N4/8/8/8/4K3 w - - 0 1");
        let ToolResult::FindThreats(t) = analyze_board(&fork, &ToolCall::FindThreats).unwrap() else {
            panic!()
        };
        assert_eq!(t[0].san, "Nc7+");
        assert_eq!(t[0].tactics, ["fork", "check"]);
        let ToolResult::FindThreats(t) = analyze_board(&Chess::default(), &ToolCall::FindThreats).unwrap() else {
            panic!()
        };
        assert!(t.is_empty(), "{t:?}");
    }

    #[test]
    fn compare_and_prophylaxis_see_the_back_rank() {
        // White mates at once; the queen may also blunder itself away.
        let p = pos("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
        let call = ToolCall::Compare {
            moves: vec!["Qxd8#".into(), "Qd4".into(), "Qb3".into()],
        };
        let ToolResult::Compare(c) = analyze_board(&p, &call).unwrap() else {
            panic!()
        };
        let verdicts: Vec<&str> = c.iter().map(|c| c.verdict).collect();
        assert_eq!(verdicts, ["mates", "hangs", "sound"], "Qb3 still guards d1: {c:?}");
        assert!(ToolResult::Compare(c).to_text().starts_with("move | verdict"));
        let fools = pos("rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2");
        let call = ToolCall::Compare {
            moves: vec!["g4".into(), "e4".into()],
        };
        let ToolResult::Compare(c) = analyze_board(&fools, &call).unwrap() else {
            panic!()
        };
        assert_eq!(c[0].verdict, "loses to mate");
        assert_ne!(c[1].verdict, "loses to mate");
        // After 1.e4 e5 2.Bc4 Nc6 3.Qh5 Black must meet Qxf7#.
        let scholar = pos("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3");
        let ToolResult::Prophylaxis(pr) = analyze_board(&scholar, &ToolCall::Prophylaxis).unwrap() else {
            panic!()
        };
        assert_eq!(pr.threats[0].san, "Qxf7#");
        assert!(
            pr.defences[0].remaining < 1000,
            "the best answer stops the mate: {pr:?}"
        );
        assert!(
            ["Qe7", "Qf6", "g6", "Nh6"].contains(&pr.defences[0].san.as_str()),
            "{pr:?}"
        );
    }

    #[test]
    fn deep_analysis_finds_the_sole_defender() {
        // The e2 rook alone defends the e4 knight, which the e8 rook attacks.
        let p = pos("4r1k1/8/8/8/4N3/8/4R3/6K1 w - - 0 1");
        let ToolResult::DeepAnalysis(roles) = analyze_board(&p, &ToolCall::DeepAnalysis).unwrap() else {
            panic!()
        };
        let rook = roles.iter().find(|r| r.square == "e2").unwrap();
        assert_eq!(rook.sole_defender_of, ["e4"]);
        let knight = roles.iter().find(|r| r.square == "e4").unwrap();
        assert_eq!((knight.attacked_by, knight.defended_by, knight.hangs), (1, 1, false));
        assert!(
            ToolResult::DeepAnalysis(roles)
                .to_text()
                .contains("SOLE DEFENDER of e4")
        );
    }

    #[test]
    fn deep_threats_prepare_a_fork() {
        // A knight two jumps from a royal fork on c7.
        let p = pos("r3k3/8/8/8/8/2N5/8/4K3 w - - 0 1");
        let ToolResult::DeepThreats(c) = analyze_board(&p, &ToolCall::DeepThreats).unwrap() else {
            panic!()
        };
        assert!(c.iter().any(|c| c.follow_up.tactics.contains(&"fork")), "{c:?}");
        let ToolResult::DeepThreats(none) = analyze_board(&Chess::default(), &ToolCall::DeepThreats).unwrap() else {
            panic!()
        };
        assert!(none.is_empty(), "{none:?}");
    }

    #[test]
    fn position_eval_counts_structure() {
        let ToolResult::PositionEval(start) = analyze_board(&Chess::default(), &ToolCall::PositionEval).unwrap() else {
            panic!()
        };
        assert_eq!((start.white.mobility, start.black.mobility), (20, 20));
        assert_eq!(
            (
                start.white.pawn_shield,
                start.white.doubled_pawns,
                start.white.passed_pawns
            ),
            (3, 0, 0)
        );
        assert_eq!(start.white.batteries, 0, "every slider is boxed in at the start");
        // White: doubled c-pawns, three isolated and (no black pawns) passed pawns;
        // queen and rook side by side on the first rank.
        let p = pos("6k1/8/8/8/P7/2P5/2P5/3QR1K1 w - - 0 1");
        let ToolResult::PositionEval(e) = analyze_board(&p, &ToolCall::PositionEval).unwrap() else {
            panic!()
        };
        assert_eq!(
            (e.white.doubled_pawns, e.white.isolated_pawns, e.white.passed_pawns),
            (1, 3, 3)
        );
        assert_eq!(e.white.batteries, 1);
        assert!(e.to_text().contains("batteries 1"));
    }

    #[test]
    fn static_exchange_counts_recaptures_and_x_rays() {
        // A knight on d5 defended by the e4 pawn, attacked by the c6 pawn: N for P.
        let p = pos("4k3/8/2p5/3N4/4P3/8/8/4K3 b - - 0 1");
        assert_eq!(see(p.board(), Square::D5, Color::Black), 2);
        // A pawn on e5 attacked by a rook, defended by a rook behind a rook (x-ray): no gain.
        let p = pos("4k3/8/8/4p3/8/8/8/R3KR2 w - - 0 1");
        assert_eq!(see(p.board(), Square::E5, Color::White), 0, "nothing attacks e5");
        let p = pos("4r1k1/4r3/8/4p3/8/8/4R3/4RK2 w - - 0 1");
        assert_eq!(see(p.board(), Square::E5, Color::White), 0, "RxP, RxR, RxR, RxR: loses");
        let p = pos("6k1/4r3/8/4p3/8/8/4R3/4RK2 w - - 0 1");
        assert_eq!(
            see(p.board(), Square::E5, Color::White),
            1,
            "two rooks against one: wins the pawn"
        );
    }
}
