use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::server::auth::Caller;
use crate::server::extract::ApiJson;
use crate::server::{AppState, error::ApiError};
use crate::store::{MatchRow, Player};

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    name: String,
}

/// A new player; the response carries its bearer token, shown only this once.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreatedPlayer {
    #[serde(flatten)]
    player: Player,
    token: String,
}

#[utoipa::path(post, path = "/api/players", tag = "players", request_body = NewPlayer, responses((status = 201, description = "the player and its token, shown once", body = CreatedPlayer), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn create(
    State(app): State<AppState>,
    ApiJson(body): ApiJson<NewPlayer>,
) -> Result<(StatusCode, Json<CreatedPlayer>), ApiError> {
    let (player, token) = app.runtime.create_player(&body.name).await?;
    Ok((StatusCode::CREATED, Json(CreatedPlayer { player, token })))
}

#[utoipa::path(get, path = "/api/players/{id}", tag = "players", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, body = Player), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn get(
    State(app): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Player>, ApiError> {
    let id = caller.owned_player(&app, &id).await?;
    Ok(Json(app.runtime.player(id).await?))
}

/// The caller's own matches, newest first (bearer token).
#[utoipa::path(get, path = "/api/players/{id}/matches", tag = "players", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, body = Vec<MatchRow>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn matches(
    State(app): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Vec<MatchRow>>, ApiError> {
    let id = caller.owned_player(&app, &id).await?;
    Ok(Json(app.runtime.services().db.matches_of(id, 200).await?))
}
