use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;

use crate::chess::engine::Style;
use crate::personas::Persona;
use crate::server::{AppState, error::ApiError};

/// What a player may know of a persona before playing it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PersonaView {
    id: String,
    name: String,
    biography: String,
    voice: String,
    elo: u32,
    #[schema(value_type = String)]
    style: Style,
    tones: Vec<String>,
    emotions: Vec<String>,
    /// A face per emotion, for the page.
    expressions: std::collections::BTreeMap<String, String>,
}

impl From<&Persona> for PersonaView {
    fn from(p: &Persona) -> Self {
        PersonaView {
            id: p.id.clone(),
            name: p.name.clone(),
            biography: p.biography.clone(),
            voice: p.voice.clone(),
            elo: p.elo,
            style: p.style,
            tones: p.tones.clone(),
            emotions: p.emotions.clone(),
            expressions: p.expressions.clone(),
        }
    }
}

#[utoipa::path(get, path = "/api/personas", tag = "personas", responses((status = 200, body = Vec<PersonaView>)))]
pub async fn list(State(app): State<AppState>) -> Json<Vec<PersonaView>> {
    Json(
        app.runtime
            .services()
            .personas
            .iter()
            .map(|p| PersonaView::from(p.as_ref()))
            .collect(),
    )
}

#[utoipa::path(get, path = "/api/personas/{id}", tag = "personas", params(("id" = String, Path, description = "persona id")), responses((status = 200, body = PersonaView), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn get(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<PersonaView>, ApiError> {
    let persona = app
        .runtime
        .services()
        .persona(&id)
        .ok_or_else(|| ApiError::not_found(format!("persona '{}'", id.chars().take(64).collect::<String>())))?;
    Ok(Json(PersonaView::from(persona.as_ref())))
}
