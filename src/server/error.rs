//! The HTTP layer's one error type: a status, a stable machine code and a
//! human message, always as JSON. Internal errors are logged, not leaked.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::chess::MoveError;
use crate::ids::BadId;
use crate::runtime::RuntimeError;
use crate::store::StoreError;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Seconds to wait before trying again (a `Retry-After` header).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// The same error, telling the client when to try again.
    pub fn retry_after(self, secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs.max(1)),
            ..self
        }
    }

    pub fn not_found(what: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("{} not found", what.into()))
    }

    pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
        tracing::error!("internal error: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "something went wrong on our side; it has been logged",
        )
    }
}

/// Every error response: `{"error": {"code": "...", "message": "..."}}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// Stable and machine-readable, e.g. `illegal_move`.
    code: &'static str,
    /// For people; may change between versions.
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code,
                message: self.message,
            },
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, secs.into());
        }
        response
    }
}

impl From<crate::runtime::CardImportError> for ApiError {
    fn from(e: crate::runtime::CardImportError) -> ApiError {
        use crate::personas::InstallError;
        use crate::personas::card::CardError;
        use crate::runtime::CardImportError as E;
        let message = e.to_string();
        match e {
            E::Card(CardError::TooLarge(_)) => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", message),
            E::Card(_) | E::Install(InstallError::Invalid(_)) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_card", message)
            }
            E::Install(InstallError::Taken { .. }) => ApiError::new(StatusCode::CONFLICT, "conflict", message),
            E::Install(InstallError::Io { .. }) | E::Memory(_) => ApiError::internal(message),
        }
    }
}

impl From<RuntimeError> for ApiError {
    fn from(e: RuntimeError) -> ApiError {
        use StatusCode as S;
        let message = e.to_string();
        match e {
            RuntimeError::NotFound(_) => ApiError::new(S::NOT_FOUND, "not_found", message),
            RuntimeError::UnknownPersona(_) => ApiError::new(S::NOT_FOUND, "unknown_persona", message),
            // Well-formed JSON naming an impossible position: unprocessable.
            RuntimeError::InvalidFen(_) => ApiError::new(S::UNPROCESSABLE_ENTITY, "invalid_fen", message),
            RuntimeError::BadUtcOffset(_) => ApiError::new(S::BAD_REQUEST, "invalid_utc_offset", message),
            RuntimeError::BadMove(MoveError::Unrecognised { .. }) => {
                ApiError::new(S::BAD_REQUEST, "unrecognised_move", message)
            }
            RuntimeError::BadMove(MoveError::Illegal { .. }) => {
                ApiError::new(S::UNPROCESSABLE_ENTITY, "illegal_move", message)
            }
            RuntimeError::NotYourTurn => ApiError::new(S::CONFLICT, "not_your_turn", message),
            RuntimeError::GameOver => ApiError::new(S::CONFLICT, "game_over", message),
            RuntimeError::NoDrawOffer => ApiError::new(S::CONFLICT, "no_draw_offer", message),
            RuntimeError::NothingToExplain => ApiError::new(S::CONFLICT, "nothing_to_explain", message),
            RuntimeError::NothingToTakeBack => ApiError::new(S::CONFLICT, "nothing_to_take_back", message),
            RuntimeError::NoHint(_) => ApiError::new(S::SERVICE_UNAVAILABLE, "no_hint", message),
            RuntimeError::NoHintsLeft { .. } => ApiError::new(S::CONFLICT, "no_hints_left", message),
            RuntimeError::NotOver => ApiError::new(S::CONFLICT, "match_not_over", message),
            RuntimeError::NoPuzzle => ApiError::new(S::CONFLICT, "no_puzzle", message),
            RuntimeError::Puzzle(e) => e.into(),
            RuntimeError::EmptyText => ApiError::new(S::BAD_REQUEST, "empty_text", message),
            RuntimeError::NulInText => ApiError::new(S::BAD_REQUEST, "invalid_text", message),
            RuntimeError::ControlInName(_) => ApiError::new(S::BAD_REQUEST, "invalid_name", message),
            RuntimeError::TextTooLong { .. } => ApiError::new(S::PAYLOAD_TOO_LARGE, "text_too_long", message),
            RuntimeError::Unavailable => ApiError::new(S::SERVICE_UNAVAILABLE, "unavailable", message),
            RuntimeError::TooManyMatches { .. } => ApiError::new(S::TOO_MANY_REQUESTS, "too_many_matches", message),
            RuntimeError::Busy { retry_after_secs, .. } => {
                ApiError::new(S::SERVICE_UNAVAILABLE, "busy", message).retry_after(retry_after_secs)
            }
            RuntimeError::HeldElsewhere { retry_after_secs, .. } => {
                ApiError::new(S::SERVICE_UNAVAILABLE, "moved", message).retry_after(retry_after_secs)
            }
            RuntimeError::Store(e) => ApiError::internal(e),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::internal(e)
    }
}

impl From<BadId> for ApiError {
    fn from(e: BadId) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_id", e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        let code = match r {
            JsonRejection::MissingJsonContentType(_) => "expected_json",
            JsonRejection::JsonSyntaxError(_) => "malformed_json",
            JsonRejection::JsonDataError(_) => "invalid_body",
            _ => "bad_body",
        };
        ApiError::new(r.status(), code, r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_query", r.body_text())
    }
}
