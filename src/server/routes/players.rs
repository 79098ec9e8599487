use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;

use crate::ids::PlayerId;
use crate::server::extract::ApiJson;
use crate::server::{AppState, error::ApiError};
use crate::store::Player;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    name: String,
}

pub async fn create(
    State(app): State<AppState>,
    ApiJson(body): ApiJson<NewPlayer>,
) -> Result<(StatusCode, Json<Player>), ApiError> {
    let player = app.runtime.create_player(&body.name).await?;
    Ok((StatusCode::CREATED, Json(player)))
}

pub async fn get(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Player>, ApiError> {
    let id: PlayerId = id.parse()?;
    Ok(Json(app.runtime.player(id).await?))
}
