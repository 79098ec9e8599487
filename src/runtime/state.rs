//! The match as a client sees it: position, moves, legal moves, PGN, mood.

use serde::Serialize;
use shakmaty::Color;

use crate::chess::Game;
use crate::chess::odds::MoveOdds;
use crate::chess::pgn::{self, Comment, MoveNote, PgnHeaders};
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::store::{MatchNote, MatchStatus, NoteKind};
use crate::triggers::TalkMode;

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct MoveView {
    pub ply: usize,
    pub uci: String,
    pub san: String,
    pub side: &'static str,
    /// Win% after the move and what it cost its player, when evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub odds: Option<MoveOdds>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct LegalMove {
    pub uci: String,
    pub san: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct MatchState {
    pub id: MatchId,
    pub player_id: PlayerId,
    pub persona_id: PersonaId,
    pub user_color: &'static str,
    pub status: MatchStatus,
    pub result: Option<&'static str>,
    pub termination: Option<&'static str>,
    pub turn: &'static str,
    pub your_turn: bool,
    pub start_fen: String,
    pub fen: String,
    pub moves: Vec<MoveView>,
    pub legal_moves: Vec<LegalMove>,
    pub pgn: String,
    pub emotion: String,
    pub draw_offer: Option<String>,
    /// The last event number; a WebSocket opened with `?since=` this sees only newer ones.
    pub last_seq: i64,
    /// Who is thinking for the persona in a live match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serving: Option<Serving>,
    /// Hints the player asked for in this game (each a comment in the PGN).
    pub hints: usize,
    /// Takebacks the persona granted in this game (each a comment in the PGN).
    pub takebacks: usize,
    /// How much the player wants this persona to talk.
    pub talk: TalkMode,
}

/// The brains and, if any, the language model endpoint serving a live match.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Serving {
    /// `llm` or `scripted`.
    pub agent: &'static str,
    /// The move brain, e.g. "engine stockfish 15.1 at 1500 (positional)".
    pub moves: String,
    /// The endpoint name and model now answering the main agent.
    pub llm_endpoint: Option<String>,
    pub llm_model: Option<String>,
}

pub struct StateParts<'a> {
    pub id: MatchId,
    pub player_id: PlayerId,
    pub player_name: &'a str,
    pub persona_id: &'a PersonaId,
    pub persona_name: &'a str,
    pub persona_elo: u32,
    pub user_color: Color,
    pub date: chrono::DateTime<chrono::Utc>,
    pub emotion: &'a str,
    pub draw_offer: Option<&'a str>,
    pub last_seq: i64,
    /// Per ply, as stored with each move.
    pub odds: &'a [Option<MoveOdds>],
    /// The game's notes (hints), for the PGN.
    pub notes: &'a [MatchNote],
    pub talk: TalkMode,
}

pub fn color_name(c: Color) -> &'static str {
    if c.is_white() { "white" } else { "black" }
}

impl MatchState {
    pub fn build(p: StateParts<'_>, game: &Game) -> MatchState {
        let end = game.end();
        let moves = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, m)| MoveView {
                ply: i + 1,
                uci: m.uci.clone(),
                san: m.san.clone(),
                side: if m.mover == p.user_color { "user" } else { "persona" },
                odds: p.odds.get(i).copied().flatten(),
            })
            .collect();
        MatchState {
            id: p.id,
            player_id: p.player_id,
            persona_id: p.persona_id.clone(),
            user_color: color_name(p.user_color),
            status: if end.is_some() {
                MatchStatus::Finished
            } else {
                MatchStatus::Active
            },
            result: end.map(|e| e.result()),
            termination: end.map(|e| e.termination()),
            turn: color_name(game.turn()),
            your_turn: end.is_none() && game.turn() == p.user_color,
            start_fen: game.start_fen().to_string(),
            fen: game.fen(),
            moves,
            legal_moves: game
                .legal_moves()
                .into_iter()
                .map(|(uci, san)| LegalMove { uci, san })
                .collect(),
            pgn: pgn_of(&p, game),
            hints: p.notes.iter().filter(|n| n.is(NoteKind::Hint)).count(),
            takebacks: p.notes.iter().filter(|n| n.is(NoteKind::Takeback)).count(),
            talk: p.talk,
            emotion: p.emotion.to_string(),
            draw_offer: p.draw_offer.map(str::to_string),
            last_seq: p.last_seq,
            serving: None,
        }
    }
}

fn pgn_of(p: &StateParts<'_>, game: &Game) -> String {
    pgn::write_with(&headers_of(p), game, &comments_of(p))
}

/// The PGN with a note after each move (`runtime/review.rs`).
pub fn analysed_pgn_of(p: &StateParts<'_>, game: &Game, notes: &[MoveNote]) -> String {
    pgn::write_annotated(&headers_of(p), game, &comments_of(p), notes)
}

fn headers_of(p: &StateParts<'_>) -> PgnHeaders {
    let (white, black) = if p.user_color.is_white() {
        (p.player_name.to_string(), p.persona_name.to_string())
    } else {
        (p.persona_name.to_string(), p.player_name.to_string())
    };
    let elo_tag = if p.user_color.is_white() {
        "BlackElo"
    } else {
        "WhiteElo"
    };
    PgnHeaders {
        event: "kibitz club game".into(),
        site: "kibitz".into(),
        date: p.date.format("%Y.%m.%d").to_string(),
        white,
        black,
        extra: vec![
            (elo_tag.into(), p.persona_elo.to_string()),
            ("KibitzMatch".into(), p.id.to_string()),
        ],
    }
}

/// The game's notes (a hint asked for, a takeback) before their moves.
fn comments_of(p: &StateParts<'_>) -> Vec<Comment> {
    p.notes
        .iter()
        .map(|n| Comment {
            before: n.ply,
            text: format!("{}: {}", n.kind, n.text),
        })
        .collect()
}
