use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::ids::PlayerId;
use crate::server::auth::Caller;
use crate::server::extract::ApiJson;
use crate::server::{AppState, error::ApiError};
use crate::store::{MatchRow, Player};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    name: String,
}

/// A new player; the response carries its bearer token, shown only this once.
#[derive(Serialize)]
pub struct CreatedPlayer {
    #[serde(flatten)]
    player: Player,
    token: String,
}

pub async fn create(
    State(app): State<AppState>,
    ApiJson(body): ApiJson<NewPlayer>,
) -> Result<(StatusCode, Json<CreatedPlayer>), ApiError> {
    let (player, token) = app.runtime.create_player(&body.name).await?;
    Ok((StatusCode::CREATED, Json(CreatedPlayer { player, token })))
}

pub async fn get(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Player>, ApiError> {
    let id: PlayerId = id.parse()?;
    Ok(Json(app.runtime.player(id).await?))
}

/// The caller's own matches, newest first (bearer token).
pub async fn matches(
    State(app): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Vec<MatchRow>>, ApiError> {
    let id = super::memories::owned_player(&app, caller, &id).await?;
    Ok(Json(app.runtime.services().db.matches_of(id, 200).await?))
}
