//! The official Lichess OpenAPI specification (the part kibitz uses,
//! `tests/data/lichess/`), as a checker of messages: each request body,
//! response and NDJSON stream line the fake sends or receives is validated
//! against the schema the specification gives for its path and status.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

pub struct Spec {
    doc: Value,
    validators: Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>,
}

impl Spec {
    pub fn load() -> Spec {
        let path = super::super::repo().join("tests/data/lichess/lichess-openapi.json");
        let text = std::fs::read_to_string(&path).expect("the bundled Lichess OpenAPI file");
        Spec {
            doc: serde_json::from_str(&text).expect("the bundled spec is JSON"),
            validators: Mutex::default(),
        }
    }

    /// The specification's path template that `path` (no query) is an
    /// instance of, literal segments before parameters.
    pub fn template(&self, path: &str) -> Option<String> {
        let segments: Vec<&str> = path.split('/').collect();
        let paths = self.doc["paths"].as_object()?;
        let matches = |t: &str| {
            let ts: Vec<&str> = t.split('/').collect();
            ts.len() == segments.len()
                && ts
                    .iter()
                    .zip(&segments)
                    .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
        };
        let mut found: Vec<&String> = paths.keys().filter(|t| matches(t)).collect();
        // The most literal template wins: /api/bot/game/stream/{id} over /api/bot/game/{id}/chat.
        found.sort_by_key(|t| t.matches('{').count());
        found.first().map(|t| t.to_string())
    }

    fn validator(&self, pointer: &str) -> Result<std::sync::Arc<jsonschema::Validator>, String> {
        let mut cache = self.validators.lock().unwrap();
        if let Some(v) = cache.get(pointer) {
            return Ok(v.clone());
        }
        if self.doc.pointer(pointer.trim_start_matches('#')).is_none() {
            return Err(format!("the specification has nothing at {pointer}"));
        }
        // The document is the schema's root, so its $refs resolve; the
        // schema itself is the one at `pointer`.
        let mut root = self.doc.clone();
        // A $ref is a URI: its fragment cannot hold a path template's braces.
        root["$ref"] = json!(pointer.replace('{', "%7B").replace('}', "%7D"));
        let validator = jsonschema::draft202012::new(&root).map_err(|e| format!("{pointer}: {e}"))?;
        let validator = std::sync::Arc::new(validator);
        cache.insert(pointer.to_string(), validator.clone());
        Ok(validator)
    }

    fn check(&self, pointer: &str, value: &Value) -> Result<(), String> {
        let validator = self.validator(pointer)?;
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        match errors.is_empty() {
            true => Ok(()),
            false => Err(format!("{value} does not match {pointer}: {}", errors.join("; "))),
        }
    }

    /// A response's body against the schema of `method path` at `status`.
    pub fn check_response(
        &self,
        method: &str,
        path: &str,
        status: u16,
        content: &str,
        body: &Value,
    ) -> Result<(), String> {
        let template = self
            .template(path)
            .ok_or_else(|| format!("{method} {path} is not in the specification"))?;
        let pointer = format!(
            "#/paths/{}/{}/responses/{status}/content/{}/schema",
            escape(&template),
            method.to_lowercase(),
            escape(content)
        );
        self.check(&pointer, body)
    }

    /// A form-encoded request body against the operation's request schema.
    pub fn check_form(&self, method: &str, path: &str, form: &[(String, String)]) -> Result<(), String> {
        let template = self
            .template(path)
            .ok_or_else(|| format!("{method} {path} is not in the specification"))?;
        let op = format!("/paths/{}/{}", escape(&template), method.to_lowercase());
        let body = self.doc.pointer(&format!("{op}/requestBody"));
        let Some(body) = body else {
            return match form.is_empty() {
                true => Ok(()),
                false => Err(format!("{method} {path} takes no body, got {form:?}")),
            };
        };
        let object: serde_json::Map<String, Value> = form.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        if form.is_empty() && body["required"] == json!(true) {
            return Err(format!("{method} {path} requires a body"));
        }
        let pointer = format!("#{op}/requestBody/content/application~1x-www-form-urlencoded/schema");
        self.check(&pointer, &Value::Object(object))
    }
}

/// A JSON pointer's escape of one key.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
