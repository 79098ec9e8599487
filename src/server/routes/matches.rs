use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::events::MatchEvent;
use crate::ids::MatchId;
use crate::ids::PlayerId;
use crate::runtime::{ColorChoice, MatchRequest, MatchState, Opened, Outcome, Runtime, UserCommand};
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::{ApiJson, ApiQuery, IdPath};
use crate::server::limits::RateLimits;
use crate::store::Db;
use crate::triggers::TalkMode;

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatch {
    /// The caller's own player id (the admin may name anyone's).
    #[schema(format = Uuid)]
    player_id: String,
    #[schema(max_length = 64, pattern = r"^[^\u0000]*$")]
    persona_id: String,
    #[serde(default = "random")]
    color: ColorChoice,
    /// A start position; an impossible one is refused with 422 invalid_fen.
    #[schema(max_length = 100, pattern = r"^[^\u0000]*$")]
    fen: Option<String>,
    /// Minutes east of UTC (a browser's `-new Date().getTimezoneOffset()`).
    #[schema(minimum = -720, maximum = 840)]
    utc_offset_minutes: Option<i32>,
    /// The persona plays at your own rating (within 200 of its card's
    /// Elo) and says so; the game is then not rated.
    #[serde(default)]
    adaptive: bool,
}

fn random() -> ColorChoice {
    ColorChoice::Random
}

/// A new match, or (no `fen` given) the player's unfinished one against
/// the same persona, resumed: 200 with `"resumed": true`. A player holds at
/// most `limits.live_matches_per_player` unfinished matches (429
/// `too_many_matches`). While the engine is too far behind
/// (`limits.busy_engine_wait_ms`) or the cores are saturated
/// (`limits.busy_lag_ms`) a new match is refused: 503 `busy` with
/// `Retry-After`.
#[utoipa::path(post, path = "/api/matches", tag = "matches", security(("bearer" = [])), request_body = NewMatch, responses((status = 201, description = "a new match", body = Opened), (status = 200, description = "the unfinished match against this persona, resumed", body = Opened), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "busy: the server is behind; try again after Retry-After seconds", body = crate::server::ErrorBody)))]
pub async fn create(
    State(runtime): State<Runtime>,
    caller: Caller,
    ApiJson(body): ApiJson<NewMatch>,
) -> Result<(StatusCode, Json<Opened>), ApiError> {
    let player: PlayerId = body.player_id.parse()?;
    caller.may_access(Some(player), "player")?;
    let req = MatchRequest {
        persona_id: &body.persona_id,
        color: body.color,
        fen: body.fen.as_deref(),
        utc_offset_minutes: body.utc_offset_minutes,
        adaptive: body.adaptive,
        uncapped: false,
    };
    let opened = runtime.open_match(player, req).await?;
    let status = if opened.resumed {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((status, Json(opened)))
}

#[utoipa::path(get, path = "/api/matches/{id}", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = MatchState), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn get(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<MatchState>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    Ok(Json(runtime.state(id).await?))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PgnQuery {
    /// With the analysis: each move's `[%eval]`, its glyph as a NAG, the
    /// better move of a reviewed mistake and the persona's words after it.
    #[serde(default)]
    analysis: bool,
}

#[utoipa::path(get, path = "/api/matches/{id}/pgn", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id"), PgnQuery), responses((status = 200, description = "the game so far as PGN", content_type = "application/x-chess-pgn", body = String), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn pgn(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiQuery(q): ApiQuery<PgnQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    let pgn = match q.analysis {
        true => runtime.analysed_pgn(id).await?,
        false => runtime.state(id).await?.pgn,
    };
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], pgn))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    /// SAN (`Nf3`, `exd5`, `O-O`) or UCI (`g1f3`); an illegal one is 422.
    #[schema(
        pattern = r"^(O-O(-O)?|[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|([a-h]x)?[a-h][1-8](=[QRBN])?|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?$"
    )]
    #[serde(rename = "move")]
    mv: String,
}

#[utoipa::path(post, path = "/api/matches/{id}/moves", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), request_body = MoveBody, responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn play(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiJson(body): ApiJson<MoveBody>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Move(body.mv)).await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatBody {
    /// Up to `max_chat_chars` (1000 by default); longer is 413.
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = r"^[^\u0000]*[^\s\u0085\u0000][^\u0000]*$"
    )]
    text: String,
}

#[utoipa::path(post, path = "/api/matches/{id}/chat", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), request_body = ChatBody, responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn chat(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiJson(body): ApiJson<ChatBody>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Chat(body.text)).await
}

#[utoipa::path(post, path = "/api/matches/{id}/resign", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn resign(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Resign).await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum DrawAction {
    Offer,
    Accept,
    Decline,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DrawBody {
    action: DrawAction,
}

#[utoipa::path(post, path = "/api/matches/{id}/draw", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), request_body = DrawBody, responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn draw(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiJson(body): ApiJson<DrawBody>,
) -> Result<Json<Outcome>, ApiError> {
    let cmd = match body.action {
        DrawAction::Offer => UserCommand::OfferDraw,
        DrawAction::Accept => UserCommand::AcceptDraw,
        DrawAction::Decline => UserCommand::DeclineDraw,
    };
    command(&runtime, &limits, caller, id, cmd).await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TalkBody {
    /// `quiet`: the persona only speaks when spoken to; `chatty`: a remark
    /// on every move; `normal`: as its character has it. Remembered for
    /// this persona until changed.
    mode: TalkMode,
}

#[utoipa::path(post, path = "/api/matches/{id}/talk", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), request_body = TalkBody, responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn talk(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiJson(body): ApiJson<TalkBody>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Talk(body.mode)).await
}

/// An engine-checked hint for your move, given by the persona (a `hint`
/// event, counted in the state's `hints`, a comment in the PGN).
#[utoipa::path(post, path = "/api/matches/{id}/hint", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn hint(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Hint).await
}

/// Why the persona played its last move, from its search and the board tools.
#[utoipa::path(post, path = "/api/matches/{id}/explain", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn explain(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Explain).await
}

/// Ask to take back your last move (and the persona's reply): the persona
/// grants or refuses it by its policy, in its words (a `takeback` event);
/// granted, the position is as before your move, for both sides.
#[utoipa::path(post, path = "/api/matches/{id}/takeback", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn takeback(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Takeback).await
}

/// Answer the puzzle the persona offered in this game (one of your old
/// mistakes): judged, recorded, and told in the persona's words (a
/// `puzzle_answer` event); 409 `no_puzzle` if none is waiting.
#[utoipa::path(post, path = "/api/matches/{id}/puzzle", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), request_body = super::puzzles::AnswerBody, responses((status = 200, body = Outcome), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn puzzle(
    State(runtime): State<Runtime>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiJson(body): ApiJson<super::puzzles::AnswerBody>,
) -> Result<Json<Outcome>, ApiError> {
    command(&runtime, &limits, caller, id, UserCommand::Puzzle(body.mv)).await
}

/// A command to the match, rationed by what it asks of the persona
/// (`limits::command_weight`), as the WebSocket's are.
async fn command(
    runtime: &Runtime,
    limits: &RateLimits,
    caller: Caller,
    id: MatchId,
    cmd: UserCommand,
) -> Result<Json<Outcome>, ApiError> {
    let id = caller.playable_match(runtime, &runtime.shared().db, id).await?;
    crate::server::limits::ration(limits, id, &cmd)?;
    Ok(Json(runtime.command(id, cmd).await?))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Since {
    #[serde(default)]
    since: i64,
    /// At most this many (1 to 1000, 1000 by default): a long match comes
    /// a page at a time; ask again with `since` = the last one's `seq`
    /// until fewer come.
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<usize>,
}

/// Events a page holds at most.
pub const EVENTS_PAGE: usize = 1000;

/// The match's events after `since`, a page at a time, for clients that
/// poll or catch up.
#[utoipa::path(get, path = "/api/matches/{id}/events", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id"), Since), responses((status = 200, body = Vec<MatchEvent>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn events(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
    ApiQuery(q): ApiQuery<Since>,
) -> Result<Json<Vec<MatchEvent>>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    let limit = super::limit(q.limit, EVENTS_PAGE, EVENTS_PAGE)?;
    let rows = db.events_page(id, q.since, limit as i64).await?;
    Ok(Json(crate::events::readable(rows)))
}

/// The trigger log: which trigger fired when, what was recalled, what was done.
/// The brain's private thinking is left out.
#[utoipa::path(get, path = "/api/matches/{id}/triggers", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, description = "which trigger fired when, what was recalled and done", body = Vec<Object>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn triggers(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let id = caller.owned_match(&runtime, id).await?;
    let rows = db.triggers(id).await?;
    Ok(Json(
        rows.into_iter()
            .map(|t| {
                json!({
                    "trigger": t.trigger,
                    "fired_at": t.fired_at,
                    "recalled_ids": t.recalled_ids,
                    "executed": t.actions.get("executed"),
                    "brain": t.actions.get("brain"),
                    // What a chat line was heard as: intent, confidence, facts.
                    "heard": t.actions.get("heard"),
                    // How a model's words came when not on time: late, dropped.
                    "words": t.actions.get("words"),
                    "duration_us": t.duration_us,
                })
            })
            .collect(),
    ))
}
