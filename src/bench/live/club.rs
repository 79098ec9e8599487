//! `kibitz bench live --nodes N`: N `kibitz serve` nodes on loopback, one
//! club on one PostgreSQL (a fresh database from `--database-url`) and one
//! Qdrant server (a fresh collection at `--qdrant-url`). A player's HTTP
//! requests go to one node and its WebSocket to another in turn, as a
//! round-robin balancer would send them, so (N-1)/N of the frames are
//! relayed to the node that holds the match.

use anyhow::{Context, bail};
use kibitz::config::Config;

use super::server::{CpuSeconds, LiveServer};

/// The club the load runs against: one node or several.
pub(super) struct Club {
    pub(super) nodes: Vec<LiveServer>,
}

/// Where the nodes keep what they share.
pub(super) struct Shared<'a> {
    pub(super) database_url: Option<&'a str>,
    pub(super) qdrant_url: Option<&'a str>,
}

impl Club {
    pub(super) async fn start(
        config: &Config,
        nodes: usize,
        shared: Shared<'_>,
        idle_scale: f64,
        env: &[(&str, String)],
    ) -> anyhow::Result<Club> {
        let mut env: Vec<(&str, String)> = env.to_vec();
        if let Some(admin) = shared.database_url {
            env.push(("KIBITZ_DATABASE_URL", fresh_database(admin).await?));
        }
        if let Some(url) = shared.qdrant_url {
            let collection = format!("kibitz_bench_{}", uuid::Uuid::new_v4().simple());
            env.extend([
                ("KIBITZ_QDRANT_URL", url.to_string()),
                ("KIBITZ_QDRANT_COLLECTION", collection),
            ]);
        }
        if nodes > 1 {
            if shared.database_url.is_none() || shared.qdrant_url.is_none() {
                bail!("--nodes {nodes} needs --database-url (a PostgreSQL admin URL) and --qdrant-url");
            }
            let secret = format!("bench-club-{:016x}", rand::random::<u64>());
            env.push(("KIBITZ_CLUSTER_SECRET", secret));
        }
        let mut started = Vec::new();
        // One after another: the first makes the schema and the collection.
        for i in 0..nodes {
            eprintln!("live: starting node {} of {nodes}", i + 1);
            started.push(LiveServer::spawn(config, idle_scale, &env, nodes > 1).await?);
        }
        Ok(Club { nodes: started })
    }

    pub(super) fn remote(url: &str) -> Club {
        Club {
            nodes: vec![LiveServer::remote(url)],
        }
    }

    /// The node that watches the phases and answers the checks.
    pub(super) fn first(&self) -> &LiveServer {
        &self.nodes[0]
    }

    /// Where match `i` sends its HTTP requests and opens its WebSocket.
    pub(super) fn bases(&self, i: usize) -> (String, String) {
        let n = self.nodes.len();
        (self.nodes[i % n].base.clone(), self.nodes[(i / n + i) % n].base.clone())
    }

    /// Every node's CPU, added up.
    pub(super) fn cpu(&self) -> CpuSeconds {
        self.nodes
            .iter()
            .map(LiveServer::cpu)
            .fold(CpuSeconds::default(), |a, b| CpuSeconds {
                server: a.server + b.server,
                engines: a.engines + b.engines,
                spare_engines: a.spare_engines + b.spare_engines,
            })
    }
}

/// A new, empty database on the PostgreSQL that `admin` reaches.
async fn fresh_database(admin: &str) -> anyhow::Result<String> {
    use sqlx::Connection;
    let name = format!("kibitz_bench_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(admin)
        .await
        .context("--database-url: connecting to PostgreSQL")?;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await?;
    let (base, _) = admin.rsplit_once('/').context("--database-url must end in /DATABASE")?;
    Ok(format!("{base}/{name}"))
}
