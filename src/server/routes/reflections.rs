//! After the match: the persona's reflection, the game's review, and its
//! per-turn reasoning (the private `thinking`, never shown while the match
//! is on).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::ids::MatchId;
use crate::reflection::Reflection;
use crate::reflection::review::GameReview;
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::IdPath;
use crate::store::{Db, MatchStatus};

#[utoipa::path(get, path = "/api/matches/{id}/reflection", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, description = "the persona's reflection on the finished match", body = Object), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn reflection(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Reflection>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    let found = db.reflection(id).await?;
    found
        .map(Json)
        .ok_or_else(|| ApiError::not_found("reflection (the match is not over yet)"))
}

#[utoipa::path(get, path = "/api/matches/{id}/review", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, description = "the finished game to look back at: every move with its win chance, score and glyph, the key moments with the persona's comment and the better move, the reflection and the game's puzzles", body = GameReview), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn review(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<GameReview>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    Ok(Json(runtime.review(id).await?))
}

#[utoipa::path(get, path = "/api/matches/{id}/reasoning", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, description = "the persona's private thinking per turn, after the match", body = Vec<Object>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn reasoning(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    let state = runtime.state(id).await?;
    if state.status != MatchStatus::Finished {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "match_not_over",
            "the persona's reasoning is revealed after the match",
        ));
    }
    let rows = db.triggers(id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|t| {
                json!({
                    "trigger": t.trigger,
                    "fired_at": t.fired_at,
                    "brain": t.actions.get("brain"),
                    "heard": t.actions.get("heard"),
                    "thinking": t.actions.get("thinking"),
                    "words": t.actions.get("words"),
                })
            })
            .collect(),
    ))
}
