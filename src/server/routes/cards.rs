//! Admin-only character cards: import a card (PNG or JSON, V2 or V3) as a
//! persona the page lists at once; export any persona as a card.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::admin::admin_only;
use super::personas::PersonaView;
use crate::ids::PersonaId;
use crate::personas::BrainKind;
use crate::personas::card::{Format, ImportOptions};
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::{ApiBytes, ApiQuery, IdPath};

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    /// The persona's id (else made from the card's name).
    #[param(pattern = "^[a-z0-9-]{1,40}$")]
    id: Option<String>,
    /// Its strength, 400..=3200 (default 1500, or the card's kibitz section).
    #[param(minimum = 400, maximum = 3200)]
    elo: Option<u32>,
    /// aggressive, positional, defensive or tricky.
    #[param(pattern = "^(aggressive|positional|defensive|tricky)$")]
    style: Option<String>,
    /// engine, llm or pipeline:p+e+pl+m.
    #[param(pattern = "^(engine|llm|pipeline(:[a-z]+(\\+[a-z]+)*)?)$")]
    brain: Option<String>,
    /// Replace the persona of the same id.
    #[serde(default)]
    replace: bool,
}

/// The persona an import made, and what it decided that the card did not say.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ImportedView {
    persona: PersonaView,
    notes: Vec<String>,
    replaced: bool,
    /// Lines of lore it tells.
    lore: usize,
}

#[utoipa::path(post, path = "/api/admin/personas/import", tag = "admin", security(("bearer" = [])), params(ImportQuery), request_body(content = String, content_type = "application/octet-stream", description = "a character card file: PNG or JSON, V2 or V3, at most 5 MiB"), responses((status = 201, body = ImportedView), (status = "4XX", description = "a client error, with a stable code: invalid_card names the field, conflict the id or name taken, too_large", body = crate::server::ErrorBody)))]
pub async fn import(
    State(runtime): State<Runtime>,
    caller: Caller,
    ApiQuery(q): ApiQuery<ImportQuery>,
    ApiBytes(body): ApiBytes,
) -> Result<(StatusCode, Json<ImportedView>), ApiError> {
    admin_only(caller)?;
    let opts = options(q.id, q.elo, q.style, q.brain)?;
    let done = runtime.import_card(&body, &opts, q.replace).await?;
    let view = ImportedView {
        persona: PersonaView::from(done.persona.as_ref()),
        lore: done.persona.lore.len(),
        notes: done.notes,
        replaced: done.replaced,
    };
    Ok((StatusCode::CREATED, Json(view)))
}

fn options(
    id: Option<String>,
    elo: Option<u32>,
    style: Option<String>,
    brain: Option<String>,
) -> Result<ImportOptions, ApiError> {
    let bad = |field: &str, problem: String| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_query",
            format!("{field}: {problem}"),
        )
    };
    let style = style
        .map(|s| serde_json::from_value(serde_json::Value::String(s)).map_err(|e| bad("style", e.to_string())))
        .transpose()?;
    let brain = brain
        .map(|b| BrainKind::try_from(b).map_err(|e| bad("brain", e)))
        .transpose()?;
    Ok(ImportOptions { id, elo, style, brain })
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CardQuery {
    /// v3-png (default), v3-json or v2-json.
    #[param(pattern = "^(v3-png|v3-json|v2-json)$")]
    format: Option<String>,
}

#[utoipa::path(get, path = "/api/admin/personas/{id}/card", tag = "admin", security(("bearer" = [])), params(("id" = String, Path, description = "persona id", pattern = "^[a-z0-9-]{1,64}$"), CardQuery), responses((status = 200, description = "the persona as a character card file", content_type = "image/png"), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn export(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<PersonaId>,
    ApiQuery(q): ApiQuery<CardQuery>,
) -> Result<Response, ApiError> {
    admin_only(caller)?;
    let format: Format = q
        .format
        .as_deref()
        .unwrap_or("v3-png")
        .parse()
        .map_err(|e: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query", e))?;
    let bytes = runtime
        .export_card(&id, format)
        .await
        .map_err(|e| ApiError::from(crate::runtime::CardImportError::from(e)))?
        .ok_or_else(|| ApiError::not_found(format!("persona '{id}'")))?;
    let mime = match format {
        Format::V3Png => "image/png",
        _ => "application/json",
    };
    let disposition = format!("attachment; filename=\"{id}.{}\"", format.extension());
    Ok((
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}
