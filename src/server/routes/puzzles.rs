//! Your mistakes as puzzles: a player's list, an answer judged, a puzzle
//! dismissed. Only the player (or the admin) reaches them.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::ids::{PersonaId, PlayerId, PuzzleId};
use crate::puzzles::{self, PuzzleError, PuzzleRow, Verdict};
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::{ApiJson, ApiQuery, IdPath};
use crate::store::Db;

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PuzzleQuery {
    /// Only this persona's puzzles.
    #[param(pattern = r"^[a-z0-9-]{1,64}$")]
    persona: Option<String>,
}

#[utoipa::path(get, path = "/api/players/{id}/puzzles", tag = "puzzles", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id"), PuzzleQuery), responses((status = 200, description = "the player's mistakes kept as puzzles, newest first (without their solutions)", body = Vec<PuzzleRow>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn list(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
    ApiQuery(q): ApiQuery<PuzzleQuery>,
) -> Result<Json<Vec<PuzzleRow>>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    let persona: Option<PersonaId> = q.persona.map(|p| p.parse()).transpose()?;
    Ok(Json(db.puzzles_of(id, persona.as_ref()).await?))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// SAN (`Rd8#`) or UCI (`d1d8`), on the puzzle's position (also the
    /// body of `POST /api/matches/{id}/puzzle`).
    #[schema(
        pattern = r"^(O-O(-O)?|[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|([a-h]x)?[a-h][1-8](=[QRBN])?|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?$"
    )]
    #[serde(rename = "move")]
    pub(super) mv: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Answered {
    pub verdict: Verdict,
    pub puzzle: PuzzleRow,
}

#[utoipa::path(post, path = "/api/puzzles/{id}/answer", tag = "puzzles", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "puzzle id")), request_body = AnswerBody, responses((status = 200, description = "right or wrong, with the solution; solved twice, the puzzle retires", body = Answered), (status = "4XX", description = "a client error, with a stable code (422 illegal_move)", body = crate::server::ErrorBody)))]
pub async fn answer(
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<PuzzleId>,
    ApiJson(body): ApiJson<AnswerBody>,
) -> Result<Json<Answered>, ApiError> {
    owned(&db, caller, id).await?;
    let (verdict, puzzle) = puzzles::answer(&db, id, &body.mv).await?;
    Ok(Json(Answered { verdict, puzzle }))
}

#[utoipa::path(post, path = "/api/puzzles/{id}/dismiss", tag = "puzzles", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "puzzle id")), responses((status = 204, description = "never offered again"), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn dismiss(
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<PuzzleId>,
) -> Result<StatusCode, ApiError> {
    owned(&db, caller, id).await?;
    db.dismiss_puzzle(id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// 404 unless the puzzle is the caller's.
async fn owned(db: &Db, caller: Caller, id: PuzzleId) -> Result<(), ApiError> {
    let owner = db.puzzle(id).await?.map(|p| p.player_id);
    caller.may_access(owner, "puzzle")
}

impl From<PuzzleError> for ApiError {
    fn from(e: PuzzleError) -> ApiError {
        let message = e.to_string();
        match e {
            PuzzleError::NotFound => ApiError::not_found("puzzle"),
            PuzzleError::Answer(puzzles::AnswerError::Illegal(_)) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "illegal_move", message)
            }
            PuzzleError::Answer(_) | PuzzleError::Store(_) => ApiError::internal(message),
        }
    }
}
