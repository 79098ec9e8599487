//! Extractors whose rejections are our JSON errors, not axum's plain text.

use std::str::FromStr;

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::ids::BadId;

fn nul_refused(code: &'static str) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::BAD_REQUEST,
        code,
        "text may not contain NUL characters",
    )
}

fn invalid_body(message: &str) -> ApiError {
    ApiError::new(axum::http::StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", message)
}

pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        let bytes = axum::body::Bytes::from_request(Request::from_parts(parts.clone(), body), state)
            .await
            .map_err(|r| ApiError::new(r.status(), "bad_body", r.body_text()))?;
        // PostgreSQL refuses NUL in text, and no text here needs one.
        if bytes.windows(6).any(|w| w.eq_ignore_ascii_case(b"\\u0000")) {
            return Err(nul_refused("invalid_body"));
        }
        let req = Request::from_parts(parts, axum::body::Body::from(bytes));
        let axum::Json(value) = axum::Json::<serde_json::Value>::from_request(req, state).await?;
        // serde reads a struct from an array of its fields too (schemathesis
        // had `["name"]` create a player); every body here is an object.
        if !value.is_object() {
            return Err(invalid_body("the body must be a JSON object"));
        }
        let value = T::deserialize(value).map_err(|e| invalid_body(&format!("invalid body: {e}")))?;
        Ok(ApiJson(value))
    }
}

pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if parts.uri.query().is_some_and(|q| q.contains("%00")) {
            return Err(nul_refused("invalid_query"));
        }
        let axum::extract::Query(value) = axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// A raw body (an uploaded file), its rejection one of our JSON errors.
pub struct ApiBytes(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for ApiBytes {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        axum::body::Bytes::from_request(req, state)
            .await
            .map(ApiBytes)
            .map_err(|r| ApiError::new(r.status(), "bad_body", r.body_text()))
    }
}

/// A route's one id, read into its newtype (`MatchId`, `PlayerId`,
/// `MemoryId`): a malformed id is the same `invalid_id` 400 on every route.
pub struct IdPath<T>(pub T);

impl<S: Send + Sync, T: FromStr<Err = BadId>> FromRequestParts<S> for IdPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Path(raw) = axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|r| ApiError::new(r.status(), "invalid_path", r.body_text()))?;
        Ok(IdPath(raw.parse()?))
    }
}
