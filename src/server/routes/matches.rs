use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::events::MatchEvent;
use crate::ids::{MatchId, PlayerId};
use crate::runtime::{ColorChoice, MatchState, Outcome, UserCommand};
use crate::server::extract::{ApiJson, ApiQuery};
use crate::server::limits::Limit;
use crate::server::{AppState, error::ApiError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewMatch {
    player_id: String,
    persona_id: String,
    #[serde(default = "random")]
    color: ColorChoice,
    fen: Option<String>,
    /// Minutes east of UTC (a browser's `-new Date().getTimezoneOffset()`).
    utc_offset_minutes: Option<i32>,
}

fn random() -> ColorChoice {
    ColorChoice::Random
}

pub async fn create(
    State(app): State<AppState>,
    ApiJson(body): ApiJson<NewMatch>,
) -> Result<(StatusCode, Json<Outcome>), ApiError> {
    let player: PlayerId = body.player_id.parse()?;
    let outcome = app
        .runtime
        .create_match(
            player,
            &body.persona_id,
            body.color,
            body.fen.as_deref(),
            body.utc_offset_minutes,
        )
        .await?;
    Ok((StatusCode::CREATED, Json(outcome)))
}

pub(super) fn match_id(id: &str) -> Result<MatchId, ApiError> {
    Ok(id.parse()?)
}

pub async fn get(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<MatchState>, ApiError> {
    Ok(Json(app.runtime.state(match_id(&id)?).await?))
}

pub async fn pgn(State(app): State<AppState>, Path(id): Path<String>) -> Result<impl IntoResponse, ApiError> {
    let state = app.runtime.state(match_id(&id)?).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")],
        state.pgn,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

pub async fn play(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<MoveBody>,
) -> Result<Json<Outcome>, ApiError> {
    command(&app, &id, UserCommand::Move(body.mv)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatBody {
    text: String,
}

pub async fn chat(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ChatBody>,
) -> Result<Json<Outcome>, ApiError> {
    app.limits.take(Limit::Chat, &match_id(&id)?.to_string())?;
    command(&app, &id, UserCommand::Chat(body.text)).await
}

pub async fn resign(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Outcome>, ApiError> {
    command(&app, &id, UserCommand::Resign).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum DrawAction {
    Offer,
    Accept,
    Decline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawBody {
    action: DrawAction,
}

pub async fn draw(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<DrawBody>,
) -> Result<Json<Outcome>, ApiError> {
    let cmd = match body.action {
        DrawAction::Offer => UserCommand::OfferDraw,
        DrawAction::Accept => UserCommand::AcceptDraw,
        DrawAction::Decline => UserCommand::DeclineDraw,
    };
    command(&app, &id, cmd).await
}

async fn command(app: &AppState, id: &str, cmd: UserCommand) -> Result<Json<Outcome>, ApiError> {
    Ok(Json(app.runtime.command(match_id(id)?, cmd).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Since {
    #[serde(default)]
    since: i64,
}

/// The match's events after `since`, for clients that poll or catch up.
pub async fn events(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<Since>,
) -> Result<Json<Vec<MatchEvent>>, ApiError> {
    let id = match_id(&id)?;
    app.runtime.state(id).await?;
    let rows = app.runtime.services().db.events_since(id, q.since).await?;
    Ok(Json(rows.into_iter().map(MatchEvent::from).collect()))
}

/// The trigger log: which trigger fired when, what was recalled, what was done.
/// The brain's private thinking is left out.
pub async fn triggers(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Vec<Value>>, ApiError> {
    let id = match_id(&id)?;
    app.runtime.state(id).await?;
    let rows = app.runtime.services().db.triggers(id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|t| {
                json!({
                    "trigger": t.trigger,
                    "fired_at": t.fired_at,
                    "recalled_ids": t.recalled_ids,
                    "executed": t.actions.get("executed"),
                    "brain": t.actions.get("brain"),
                    "duration_us": t.duration_us,
                })
            })
            .collect(),
    ))
}
