use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::chess::engine::Style;
use crate::config::Config;
use crate::ids::PersonaId;
use crate::personas::Persona;
use crate::runtime::Runtime;
use crate::server::error::ApiError;
use crate::server::extract::IdPath;

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
    /// Its portrait, if it has one (a URL on this server).
    #[serde(skip_serializing_if = "Option::is_none")]
    avatar_url: Option<String>,
    /// An image per emotion (URLs on this server), shown instead of its face.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    expression_images: std::collections::BTreeMap<String, String>,
}

impl From<&Persona> for PersonaView {
    fn from(p: &Persona) -> Self {
        PersonaView {
            id: p.id.to_string(),
            name: p.name.clone(),
            biography: p.biography.clone(),
            voice: p.voice.clone(),
            elo: p.elo,
            style: p.style,
            tones: p.tones.clone(),
            emotions: p.emotions.clone(),
            expressions: p.expressions.clone(),
            avatar_url: p.avatar.as_ref().map(|f| image_url(p, f)),
            expression_images: p
                .expression_images
                .iter()
                .map(|(e, f)| (e.clone(), image_url(p, f)))
                .collect(),
        }
    }
}

fn image_url(p: &Persona, file: &str) -> String {
    format!("/api/personas/{}/images/{file}", p.id)
}

#[utoipa::path(get, path = "/api/personas", tag = "personas", responses((status = 200, body = Vec<PersonaView>)))]
pub async fn list(State(runtime): State<Runtime>) -> Json<Vec<PersonaView>> {
    Json(
        runtime
            .personas()
            .iter()
            .map(|p| PersonaView::from(p.as_ref()))
            .collect(),
    )
}

#[utoipa::path(get, path = "/api/personas/{id}", tag = "personas", params(("id" = String, Path, description = "persona id", pattern = "^[a-z0-9-]{1,64}$")), responses((status = 200, body = PersonaView), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn get(State(runtime): State<Runtime>, IdPath(id): IdPath<PersonaId>) -> Result<Json<PersonaView>, ApiError> {
    let persona = runtime
        .persona(&id)
        .ok_or_else(|| ApiError::not_found(format!("persona '{id}'")))?;
    Ok(Json(PersonaView::from(persona.as_ref())))
}

#[utoipa::path(get, path = "/api/personas/{id}/images/{file}", tag = "personas", params(("id" = String, Path, description = "persona id", pattern = "^[a-z0-9-]{1,64}$"), ("file" = String, Path, pattern = "^[a-z0-9_]{1,40}[.][a-z]{3,4}$", description = "an image the persona names (its avatar_url, expression_images)")), responses((status = 200, description = "the image", content_type = "image/png"), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn image(
    State(runtime): State<Runtime>,
    State(config): State<Arc<Config>>,
    Path((id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let missing = || ApiError::not_found("image");
    let id: PersonaId = id.parse()?;
    let persona = runtime.persona(&id).ok_or_else(missing)?;
    // Only a file the persona names: never a path the client makes up.
    let mut named = persona.avatar.iter().chain(persona.expression_images.values());
    let file = named.find(|f| **f == file).ok_or_else(missing)?;
    let path = crate::personas::assets_dir(&config.personas_dir, &persona.id).join(file);
    let bytes = tokio::fs::read(&path).await.map_err(|_| missing())?;
    let mime = match crate::personas::card::image_ext(&bytes) {
        Some("png") => "image/png",
        Some("jpg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => return Err(missing()),
    };
    let headers = [
        (header::CONTENT_TYPE, mime),
        (header::CACHE_CONTROL, "public, max-age=300"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    Ok((headers, bytes).into_response())
}
