//! The OpenAPI document of the whole HTTP API, served at `/openapi.json`.
//! Paths come from each handler's `#[utoipa::path]` as the router registers
//! it, so a route cannot be served without being documented.

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "kibitz",
        description = "A chess-club persona that plays, chats and remembers you. Players send \
            `Authorization: Bearer <token>` (the token comes once, from POST /api/players); \
            a WebSocket may carry it as the subprotocol `bearer.<token>` beside `kibitz`.",
        license(name = "GPL-3.0-or-later")
    ),
    // Referenced from query parameters, which do not register their schemas.
    components(schemas(crate::memory::MemoryType)),
    modifiers(&BearerAuth),
    tags(
        (name = "service", description = "health"),
        (name = "personas", description = "who you can play"),
        (name = "players", description = "you, your token and your matches"),
        (name = "matches", description = "playing: moves, chat, draws, events, the live WebSocket, the reflection"),
        (name = "memories", description = "what the personas remember of you: review, correct, pin, erase, export"),
        (name = "puzzles", description = "your mistakes kept as puzzles: list, answer, dismiss"),
        (name = "admin", description = "operators only (admin token)"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

/// Fixes to the document once the router has added every route's schemas.
pub fn finish(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{RefOr, Schema};
    // `#[schema(min_properties = 1)]` comes out as maxProperties in
    // utoipa-gen 5.5, so the rule that a memory patch names a field is set here.
    let schemas = api.components.as_mut().map(|c| &mut c.schemas);
    if let Some(RefOr::T(Schema::Object(patch))) = schemas.and_then(|s| s.get_mut("Patch")) {
        patch.min_properties = Some(1);
    }
    rate_limited_everywhere(api);
}

/// Every route passes the request limiter (server/limits.rs), so every
/// operation may answer 429: said once here rather than on each handler.
fn rate_limited_everywhere(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{Content, Ref, ResponseBuilder};
    let limited = ResponseBuilder::new()
        .description(
            "too many requests from this token or address (`rate_limited`); `Retry-After` says when to try again",
        )
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build();
    for item in api.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for op in operations.into_iter().flatten() {
            op.responses
                .responses
                .entry("429".to_string())
                .or_insert_with(|| limited.clone().into());
        }
    }
}

impl Modify for BearerAuth {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

#[cfg(test)]
mod tests {
    use utoipa::openapi::{RefOr, Schema};

    /// Two types of one name would be one schema component, the later
    /// overwriting the other: the payload of a `familiarity` event once
    /// replaced the player's familiarity view (the history entries of a
    /// rating and of familiarity are named apart for the same reason).
    #[test]
    fn types_of_one_name_keep_schemas_of_their_own() {
        let (_, doc) = super::super::api_routes().split_for_parts();
        let schemas = &doc.components.expect("components").schemas;
        let properties = |name: &str| match schemas.get(name) {
            Some(RefOr::T(Schema::Object(o))) => o.properties.keys().cloned().collect::<Vec<_>>(),
            _ => panic!("{name} is not an object schema"),
        };
        assert!(properties("Familiarity").contains(&"days_away".to_string()));
        assert!(properties("FamiliarityReached").contains(&"previous".to_string()));
        assert!(properties("RatingEntry").contains(&"rating".to_string()));
    }
}
