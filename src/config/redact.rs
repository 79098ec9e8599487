//! Secrets inside URLs (a PostgreSQL password, an API token in a query) are
//! never printed: `kibitz config`, log lines and errors show them as `***`.

/// Query parameters whose value is a secret, by a part of their name.
const SECRET_PARAMS: [&str; 6] = ["pass", "token", "key", "secret", "sig", "auth"];

const HIDDEN: &str = "***";

/// `url` with the password of its `user:password@` and the values of
/// secret-looking query parameters replaced by `***`.
pub fn redact_url(url: &str) -> String {
    let (before_query, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let mut out = redact_userinfo(before_query);
    if let Some(query) = query {
        let params: Vec<String> = query.split('&').map(redact_param).collect();
        out.push('?');
        out.push_str(&params.join("&"));
    }
    out
}

fn redact_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            let hidden = if userinfo.contains(':') {
                format!(":{HIDDEN}")
            } else {
                String::new()
            };
            format!("{scheme}://{user}{hidden}@{host}{path}")
        }
        None => url.to_string(),
    }
}

fn redact_param(param: &str) -> String {
    match param.split_once('=') {
        Some((name, _)) if SECRET_PARAMS.iter().any(|s| name.to_ascii_lowercase().contains(s)) => {
            format!("{name}={HIDDEN}")
        }
        _ => param.to_string(),
    }
}

/// For `#[serde(serialize_with)]` on a URL field.
pub fn url<S: serde::Serializer>(url: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&redact_url(url))
}

/// For `#[serde(serialize_with)]` on an optional URL field.
pub fn opt_url<S: serde::Serializer>(url: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(u) => s.serialize_some(&redact_url(u)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn passwords_and_tokens_are_hidden_and_the_rest_is_kept() {
        assert_eq!(
            redact_url("postgres://kibitz:s3cret@db.local:5432/club?sslmode=require"),
            "postgres://kibitz:***@db.local:5432/club?sslmode=require"
        );
        assert_eq!(
            redact_url("https://llm.example/v1?api_key=abc&model=x&Token=t"),
            "https://llm.example/v1?api_key=***&model=x&Token=***"
        );
        assert_eq!(redact_url("http://user@host/x"), "http://user@host/x");
        assert_eq!(redact_url("sqlite://data/kibitz.db"), "sqlite://data/kibitz.db");
        assert_eq!(
            redact_url("http://a:b@c@host/"),
            "http://a:***@host/",
            "the last @ ends the userinfo"
        );
    }
}
