//! Several kibitz nodes on one PostgreSQL and a Qdrant server (`make
//! test-qdrant`), and nginx in front of them from `deploy/nginx.conf`.

use super::{Server, postgres_database, test_postgres};

/// Short, so failover is quick to test; production's default is 10 s.
pub const LEASE_MS: u64 = 3000;
pub const SECRET: &str = "the-test-club-shares-this";

pub struct Club {
    pub nodes: Vec<Option<Server>>,
    pub database_url: String,
    qdrant: String,
    collection: String,
}

impl Club {
    /// `n` nodes on a fresh database and collection, each with `extra`;
    /// None (with a line saying why) where no PostgreSQL or Qdrant server
    /// is at hand.
    pub async fn start(n: usize, extra: &[(&str, &str)]) -> Option<Club> {
        Club::start_each(n, extra, |_| Vec::new()).await
    }

    /// The same, node `i` also with `own(i)` (its own personas dir, say).
    pub async fn start_each(
        n: usize,
        extra: &[(&str, &str)],
        own: impl Fn(usize) -> Vec<(String, String)>,
    ) -> Option<Club> {
        let (Some(admin), Some(qdrant)) = (test_postgres(), super::test_qdrant()) else {
            eprintln!("skipped: a cluster needs KIBITZ_TEST_POSTGRES and KIBITZ_TEST_QDRANT (make test-qdrant)");
            return None;
        };
        let mut club = Club {
            nodes: Vec::new(),
            database_url: postgres_database(&admin).await,
            collection: format!("kibitz_t_{}", uuid::Uuid::new_v4().simple()),
            qdrant,
        };
        // One after another: the first creates the collection.
        for i in 0..n {
            let node = club.start_node(i, extra, &own(i)).await;
            club.nodes.push(Some(node));
        }
        Some(club)
    }

    /// Node `i` of this club (a new one, or one that was killed, again).
    pub async fn start_node(&self, i: usize, extra: &[(&str, &str)], own: &[(String, String)]) -> Server {
        let (id, lease) = (format!("node{i}"), LEASE_MS.to_string());
        let mut env = vec![
            ("KIBITZ_QDRANT_URL", self.qdrant.as_str()),
            ("KIBITZ_QDRANT_COLLECTION", self.collection.as_str()),
            ("KIBITZ_CLUSTER_SECRET", SECRET),
            ("KIBITZ_LEASE_MS", lease.as_str()),
            ("KIBITZ_NODE_ID", id.as_str()),
        ];
        env.extend_from_slice(extra);
        env.extend(own.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        Server::start_node(&self.database_url, &env).await
    }

    pub fn node(&self, i: usize) -> &Server {
        self.nodes[i].as_ref().expect("a live node")
    }

    pub async fn sql(&self) -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        sqlx::AnyPool::connect(&self.database_url).await.unwrap()
    }

    pub async fn holder(&self, m: &str) -> Option<String> {
        use sqlx::Row;
        let row = sqlx::query("SELECT node_id FROM match_leases WHERE match_id = $1")
            .bind(m)
            .fetch_optional(&self.sql().await)
            .await
            .unwrap();
        row.map(|r| r.get("node_id"))
    }
}

impl Drop for Club {
    fn drop(&mut self) {
        self.nodes.clear();
        super::drop_collection(&self.qdrant, &self.collection);
    }
}

/// nginx from `deploy/nginx.conf`, listening on `port` in front of `nodes`.
pub struct Nginx {
    child: std::process::Child,
    _dir: tempfile::TempDir,
}
impl Nginx {
    pub fn start(bin: &str, port: u16, nodes: &[&Server]) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let shipped = std::fs::read_to_string(super::repo().join("deploy/nginx.conf")).unwrap();
        let mut conf = String::new();
        for line in shipped.lines() {
            if line.trim_end().ends_with("# node") {
                // The shipped upstream lines become this test's nodes.
                if !conf.contains("127.0.0.1:") {
                    for node in nodes {
                        conf.push_str(&format!(
                            "        server 127.0.0.1:{} max_fails=1 fail_timeout=5s;\n",
                            node.port
                        ));
                    }
                }
            } else if line.trim_end().ends_with("# public") {
                conf.push_str(&format!("        listen 127.0.0.1:{port};\n"));
            } else {
                conf.push_str(line);
                conf.push('\n');
            }
        }
        let temp = dir.path().display();
        let conf = conf.replacen(
            "http {",
            &format!("http {{\n    access_log off;\n    client_body_temp_path {temp}/body;\n    proxy_temp_path {temp}/proxy;"),
            1,
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let global = format!("daemon off; pid {temp}/nginx.pid; error_log {temp}/error.log;");
        let child = std::process::Command::new(bin)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .args(["-g", &global])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nginx starts");
        Nginx { child, _dir: dir }
    }
}

impl Drop for Nginx {
    /// SIGTERM: the master stops its workers (SIGKILL would leave them).
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let _ = std::process::Command::new("kill").args(["-TERM", &pid]).status();
        let _ = self.child.wait();
    }
}
