//! `[cluster]`: several kibitz nodes serving one club on one PostgreSQL and
//! one Qdrant server. Setting `node_url` makes a node part of a cluster.

use super::ConfigError;
use super::declare::{env, section};

section! {
    /// Several nodes serving one club.
    pub struct ClusterConfig {
        /// Where the other nodes reach this one (http://10.0.0.5:8080): the
        /// node that holds a match serves its requests, and the others forward
        /// them here. Unset: this node serves alone.
        pub node_url: Option<String> = None, env("KIBITZ_NODE_URL");
        /// This node's name in the lease tables. Default: the host name and a
        /// hash of the data dir, so a restarted node takes its matches back at
        /// once. No two running nodes may share one.
        pub node_id: Option<String> = None, env("KIBITZ_NODE_ID");
        /// Shared by every node of a cluster; a forwarded request carries it.
        /// Never printed.
        #[serde(skip_serializing)]
        pub secret: Option<String> = None, env("KIBITZ_CLUSTER_SECRET").secret();
        /// How long a node that stops renewing keeps its matches (ms): a
        /// crashed node's games continue elsewhere after this.
        pub lease_ms: u64 = 10_000, env("KIBITZ_LEASE_MS");
    }
}

impl ClusterConfig {
    /// Whether this node is one of several.
    pub fn is_member(&self) -> bool {
        self.node_url.is_some()
    }

    pub(super) fn validate(&self, database_url: &str, qdrant_url: Option<&str>) -> Result<(), ConfigError> {
        let invalid = |key, message: &str| {
            Err(ConfigError::Invalid {
                key,
                message: message.to_string(),
            })
        };
        if !(1_000..=600_000).contains(&self.lease_ms) {
            return invalid("cluster.lease_ms", "must be 1000 to 600000 ms");
        }
        // It travels as an HTTP header's value: one that cannot be would be
        // dropped from every relayed request, silently.
        if self
            .secret
            .as_ref()
            .is_some_and(|s| !s.bytes().all(|b| b.is_ascii_graphic()))
        {
            return invalid(
                "cluster.secret",
                "use printable ASCII without spaces (it travels as an HTTP header)",
            );
        }
        let Some(url) = &self.node_url else {
            return Ok(());
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return invalid("cluster.node_url", "must be this node's http:// or https:// address");
        }
        if database_url.starts_with("sqlite:") {
            return invalid(
                "cluster.node_url",
                "several nodes need one PostgreSQL (KIBITZ_DATABASE_URL=postgres://...): a SQLite file belongs to one process",
            );
        }
        if qdrant_url.is_none() {
            return invalid(
                "cluster.node_url",
                "several nodes need a Qdrant server (KIBITZ_QDRANT_URL): the embedded vector index belongs to one process",
            );
        }
        if self.secret.as_ref().is_none_or(|s| s.len() < 16) {
            return invalid(
                "cluster.secret",
                "a cluster needs a shared secret of at least 16 characters (KIBITZ_CLUSTER_SECRET)",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn a_secret_that_no_header_can_carry_is_refused_at_start() {
        for bad in [
            "sixteen chars with spaces",
            "sixteen-chars-\u{e9}t\u{e9}-long",
            "tab\tinside-sixteen-chars",
        ] {
            let err = Config::from_toml("", env(&[("KIBITZ_CLUSTER_SECRET", bad)])).unwrap_err();
            assert!(err.to_string().contains("HTTP header"), "{bad}: {err}");
        }
        assert!(Config::from_toml("", env(&[("KIBITZ_CLUSTER_SECRET", "sixteen-chars-at-least")])).is_ok());
    }

    #[test]
    fn a_cluster_refuses_what_one_process_owns() {
        let sqlite = Config::from_toml("", env(&[("KIBITZ_NODE_URL", "http://a:1")])).unwrap_err();
        assert!(sqlite.to_string().contains("PostgreSQL"), "{sqlite}");
        let pg = [
            ("KIBITZ_NODE_URL", "http://a:1/"),
            ("KIBITZ_DATABASE_URL", "postgres://k@db/club"),
        ];
        let embedded = Config::from_toml("", env(&pg)).unwrap_err();
        assert!(embedded.to_string().contains("embedded vector index"), "{embedded}");
        let no_secret = [
            ("KIBITZ_NODE_URL", "http://a:1/"),
            ("KIBITZ_DATABASE_URL", "postgres://k@db/club"),
            ("KIBITZ_QDRANT_URL", "http://q:6334"),
        ];
        let err = Config::from_toml("", env(&no_secret)).unwrap_err();
        assert!(err.to_string().contains("KIBITZ_CLUSTER_SECRET"), "{err}");
    }

    #[test]
    fn a_cluster_node_on_postgres_and_qdrant_starts() {
        let all = [
            ("KIBITZ_NODE_URL", "http://a:1/"),
            ("KIBITZ_DATABASE_URL", "postgres://k@db/club"),
            ("KIBITZ_QDRANT_URL", "http://q:6334"),
            ("KIBITZ_CLUSTER_SECRET", "sixteen-chars-at-least"),
        ];
        let c = Config::from_toml("[cluster]\nlease_ms = 3000", env(&all)).unwrap();
        assert_eq!(c.cluster.node_url.as_deref(), Some("http://a:1"));
        assert_eq!(c.cluster.lease_ms, 3000);
        assert!(!c.to_toml().contains("sixteen-chars"), "the secret is never printed");
        let alone = Config::from_toml("", |_| None).unwrap();
        assert!(!alone.cluster.is_member());
    }
}
