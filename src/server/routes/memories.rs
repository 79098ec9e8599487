use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;

use crate::ids::PlayerId;
use crate::memory::Memory;
use crate::server::extract::ApiQuery;
use crate::server::{AppState, error::ApiError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    persona: Option<String>,
}

/// What the club remembers about one player (newest first).
pub async fn list(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(filter): ApiQuery<Filter>,
) -> Result<Json<Vec<Memory>>, ApiError> {
    let id: PlayerId = id.parse()?;
    app.runtime.player(id).await?;
    let memories = app
        .runtime
        .services()
        .db
        .player_memories(id, filter.persona.as_deref())
        .await?;
    Ok(Json(memories))
}
