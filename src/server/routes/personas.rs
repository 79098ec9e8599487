use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;

use crate::chess::engine::Style;
use crate::personas::Persona;
use crate::server::{AppState, error::ApiError};

/// What a player may know of a persona before playing it.
#[derive(Serialize)]
pub struct PersonaView {
    id: String,
    name: String,
    biography: String,
    voice: String,
    elo: u32,
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

pub async fn get(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<PersonaView>, ApiError> {
    let persona = app
        .runtime
        .services()
        .persona(&id)
        .ok_or_else(|| ApiError::not_found(format!("persona '{}'", id.chars().take(64).collect::<String>())))?;
    Ok(Json(PersonaView::from(persona.as_ref())))
}
