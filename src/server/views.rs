//! What the API answers, apart from what the store keeps: each view is the
//! shape a client reads, made from its row here and only here, so a new
//! column is not an API change until a view says so.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::memory::ConsolidationRow;
use crate::store::{LlmCallRow, MatchRow, MatchStatus, MemoryVersion, Player};

/// A player of the club.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerView {
    pub id: PlayerId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<Player> for PlayerView {
    fn from(p: Player) -> Self {
        PlayerView {
            id: p.id,
            name: p.name,
            created_at: p.created_at,
        }
    }
}

/// One of a player's matches, as their list shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MatchSummary {
    pub id: MatchId,
    pub player_id: PlayerId,
    pub persona_id: PersonaId,
    pub user_color: String,
    pub start_fen: String,
    /// `active` or `finished`.
    pub status: MatchStatus,
    pub result: Option<String>,
    pub termination: Option<String>,
    pub emotion: String,
    pub draw_offer: Option<String>,
    pub created_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub utc_offset_minutes: Option<i32>,
    /// The strength the persona played at (none for matches from before
    /// ratings: their persona's card Elo).
    pub persona_elo: Option<u32>,
    /// The persona adapted its strength to the player: not rated.
    pub adapted: bool,
    /// Its moves came from its calibrated engine; a language model's are
    /// of no known strength: not rated.
    pub calibrated: bool,
    /// The game on Lichess this match was played as, if it was.
    pub lichess_url: Option<String>,
}

impl From<MatchRow> for MatchSummary {
    fn from(m: MatchRow) -> Self {
        MatchSummary {
            id: m.id,
            player_id: m.player_id,
            persona_id: m.persona_id,
            user_color: m.user_color,
            start_fen: m.start_fen,
            status: m.status,
            result: m.result,
            termination: m.termination,
            emotion: m.emotion,
            draw_offer: m.draw_offer,
            created_at: m.created_at,
            ended_at: m.ended_at,
            utc_offset_minutes: m.utc_offset_minutes,
            persona_elo: m.persona_elo,
            adapted: m.adapted,
            calibrated: m.calibrated,
            lichess_url: None,
        }
    }
}

/// An earlier text of an edited memory.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemoryVersionView {
    pub content: String,
    pub replaced_at: DateTime<Utc>,
}

impl From<MemoryVersion> for MemoryVersionView {
    fn from(v: MemoryVersion) -> Self {
        MemoryVersionView {
            content: v.content,
            replaced_at: v.replaced_at,
        }
    }
}

/// One run of the memory consolidation job.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsolidationView {
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    /// `schedule`, `after_match` or `manual`.
    pub reason: String,
    /// The one player it ran for, if not everyone.
    pub player_id: Option<PlayerId>,
    pub merged: i64,
    pub superseded: i64,
    pub decayed: i64,
    /// What it did, memory by memory: `[{action, kept, retired, score}]`.
    #[schema(value_type = Vec<Object>)]
    pub details: serde_json::Value,
}

impl From<ConsolidationRow> for ConsolidationView {
    fn from(c: ConsolidationRow) -> Self {
        ConsolidationView {
            started_at: c.started_at,
            finished_at: c.finished_at,
            reason: c.reason,
            player_id: c.player_id,
            merged: c.merged,
            superseded: c.superseded,
            decayed: c.decayed,
            details: c.details,
        }
    }
}

/// One call to a language model in a match, for the admin.
#[derive(Debug, Serialize, ToSchema)]
pub struct LlmCallView {
    /// `main`, `subconscious`, `moves` or `reflection`.
    pub role: String,
    pub endpoint: String,
    pub model: String,
    pub request: String,
    pub response: String,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    /// Of the prompt tokens, those the endpoint had cached.
    pub cached_tokens: i64,
    pub latency_ms: i64,
    pub error: Option<String>,
    pub created_at: String,
}

impl From<LlmCallRow> for LlmCallView {
    fn from(c: LlmCallRow) -> Self {
        LlmCallView {
            role: c.role,
            endpoint: c.endpoint,
            model: c.model,
            request: c.request,
            response: c.response,
            prompt_tokens: c.prompt_tokens,
            completion_tokens: c.completion_tokens,
            cached_tokens: c.cached_tokens,
            latency_ms: c.latency_ms,
            error: c.error,
            created_at: c.created_at,
        }
    }
}

/// Each row read as its view, for a list.
pub fn all<R, V: From<R>>(rows: Vec<R>) -> Vec<V> {
    rows.into_iter().map(V::from).collect()
}
