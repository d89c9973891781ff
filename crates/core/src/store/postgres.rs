//! A store in a shared PostgreSQL database: `--db postgres://user@host:port/dbname`.
//!
//! What the URL leaves out is filled as libpq would: `PGHOST`, `PGPORT`, `PGUSER`,
//! `PGDATABASE`, `PGPASSWORD`, then `~/.pgpass` (or `PGPASSFILE`), `PGCONNECT_TIMEOUT`
//! (which bounds the whole connection, not only its socket); the client does not
//! read them itself. Connections to another machine are encrypted (OpenSSL), the
//! certificate verified against `sslrootcert`, `PGSSLROOTCERT` or
//! `~/.postgresql/root.crt` besides the system's authorities (libpq's `verify-ca` and
//! `verify-full` are taken); plain ones only over a Unix socket or loopback. A client
//! certificate is given from `sslcert`/`sslkey`, `PGSSLCERT`/`PGSSLKEY` or
//! `~/.postgresql/postgresql.{crt,key}`. The password is never printed: messages
//! name the server by its URL without it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio_postgres::config::{Host, SslMode};

use super::engine::{Engine, values};
use super::{INDEXES, Purpose, SCHEMA, SCHEMA_VERSION, Store};
use crate::record::{has_stray_at, split_url, without_password};

/// The advisory lock that migrations take, so that concurrent first opens of an empty
/// database do not race to create the same tables ("cryptobnc" in ASCII).
const MIGRATION_LOCK: i64 = 0x6372_7970_7462_6e63;

/// How long a connection may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The driver's own idle time before TCP keepalives (libpq leaves the kernel's, 2 h).
const LIBRARY_KEEPALIVES_IDLE: Duration = Duration::from_secs(2 * 60 * 60);
/// Idle time before TCP keepalives probe a server that has said nothing.
const KEEPALIVES_IDLE: Duration = Duration::from_secs(30);
/// How long sent data may go unacknowledged before the connection counts as lost.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long one statement may wait for the server's answer before the connection counts
/// as lost, unless `CRYPTOBENCH_STATEMENT_SECS` says otherwise: the store's statements
/// take milliseconds, and a server process that froze (stopped, or swapped out for good)
/// leaves its socket open and acknowledged, which neither keepalives nor a user timeout
/// notice.
const STATEMENT_LIMIT: Duration = Duration::from_secs(60);

/// The longest pause between two tries to connect again: a restart takes seconds, and a
/// longer pause would keep a run waiting on a server that is back.
const RECONNECT_PAUSE_MOST: Duration = Duration::from_secs(1);

/// How long a store whose connection was lost tries to connect again before it gives up,
/// unless `CRYPTOBENCH_RECONNECT_SECS` says otherwise: long enough for a server's restart
/// or a fail-over, short beside a run.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// The server a URL names, its gaps filled from the environment.
pub struct Server {
    config: tokio_postgres::Config,
    /// `postgres://user@host:port/dbname`, without the password.
    display: String,
    /// The authority the server's certificate must chain to, beside the system's:
    /// `sslrootcert` in the URL, else `PGSSLROOTCERT`, else `~/.postgresql/root.crt`
    /// where it exists, as libpq looks for it.
    root_cert: Option<PathBuf>,
    /// Whether the certificate is checked: always, except on loopback or a Unix socket
    /// where TLS was not asked for (libpq's `prefer`, which checks nothing there: a
    /// Debian server's self-signed "snakeoil" certificate is then no obstacle).
    verify: bool,
    /// The client's certificate and key, where it has them: `sslcert` and `sslkey` in
    /// the URL, else `PGSSLCERT` and `PGSSLKEY`, else `~/.postgresql/postgresql.crt`
    /// and `postgresql.key` where both exist, as libpq looks for them.
    client_cert: Option<(PathBuf, PathBuf)>,
    /// How long to keep trying when a connection is lost part-way.
    reconnect_for: Duration,
    /// How long a statement may wait for its answer (zero: for ever).
    statement_limit: Duration,
    /// Whether the server is another machine, where TLS is cryptobench's own demand
    /// (on this one, only the URL's `sslmode` asks for it).
    remote: bool,
    /// `PGPASSFILE` where it names a file that does not exist: a password looked for
    /// and not found there, which a message should name.
    missing_password_file: Option<PathBuf>,
    /// Where the password came from (`the URL`, `PGPASSWORD`, a password file), for a
    /// message that says which one the server refused: the one to correct.
    password_from: Option<String>,
}

/// The pauses between tries to connect again: short at first, for a connection that only
/// dropped, then every [`RECONNECT_PAUSE_MOST`], for a server that restarts.
fn reconnect_pauses() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(Duration::from_millis(200)), |pause| {
        Some((*pause * 2).min(RECONNECT_PAUSE_MOST))
    })
}

/// An open connection: its client, and the task that carries its messages.
pub(super) struct Link {
    pub(super) client: tokio_postgres::Client,
    carrier: tokio::task::JoinHandle<()>,
    /// How the connection ended, where it ended with an error: the server's or the
    /// socket's words, where a statement waiting on it is told only "connection closed".
    ended: std::sync::Arc<Mutex<Option<tokio_postgres::Error>>>,
}

/// A statement that had no answer within the store's limit: the connection counts as
/// lost.
#[derive(Debug, thiserror::Error)]
#[error("no answer within {} s (CRYPTOBENCH_STATEMENT_SECS)", .0.as_secs())]
pub(super) struct Unanswered(Duration);

impl Link {
    /// The answer to `asked` (of this link's client), waited for up to `limit` (zero: for
    /// ever) on `runtime`, which carries the connection's messages meanwhile.
    pub(super) fn answer<T>(
        &self,
        runtime: &tokio::runtime::Runtime,
        limit: Duration,
        asked: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        let answered = if limit.is_zero() {
            Ok(runtime.block_on(asked))
        } else {
            // The timer belongs to the runtime: made inside it.
            runtime.block_on(async { tokio::time::timeout(limit, asked).await })
        };
        match answered {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) if e.is_closed() => Err(anyhow::Error::new(
                self.ended.lock().expect("not poisoned").take().unwrap_or(e),
            )),
            Ok(Err(e)) => Err(anyhow::Error::new(e)),
            Err(_) => Err(anyhow::Error::new(Unanswered(limit))),
        }
    }

    /// Stop carrying this connection's messages: its socket is closed.
    pub(super) fn close(&self) {
        self.carrier.abort();
    }
}

/// The libpq TLS parameters that the client's own URL parser does not take.
#[derive(Debug, Default, PartialEq)]
struct TlsParameters {
    /// `sslmode=verify-ca` or `verify-full`: read as `require`, whose certificate
    /// cryptobench always verifies, host name included.
    verified: bool,
    /// `sslrootcert` (`system`: the system's authorities only).
    root_cert: Option<String>,
    /// `sslcert` and `sslkey`: the client's own certificate and its key, for a server
    /// that authenticates by certificate (`cert` in `pg_hba.conf`).
    client_cert: Option<String>,
    client_key: Option<String>,
}

/// The `sslmode` values taken: libpq's, but for `allow` (plain text first, which
/// cryptobench never chooses over TLS).
const SSL_MODES: [&str; 5] = ["disable", "prefer", "require", "verify-ca", "verify-full"];

/// The `key=value` parameters after a URL's `?`.
fn query_parameters(url: &str) -> impl Iterator<Item = (&str, &str)> {
    split_url(url)
        .and_then(|p| p.query)
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.split_once('='))
}

/// The part of `url` that the driver's parser refused (`e`), in words.
fn bad_url_part(url: &str, e: &tokio_postgres::Error) -> String {
    // The driver's words: "unknown option `foo`", "invalid value for option `port`".
    let said = std::error::Error::source(e).map_or_else(|| e.to_string(), |s| s.to_string());
    let quoted = said.split('`').nth(1).unwrap_or_default();
    if said.starts_with("unknown option") {
        return format!("unknown parameter `{quoted}`");
    }
    if said.starts_with("invalid value for option") {
        if quoted == "port" {
            let port = raw_authority(url)
                .and_then(|a| a.rsplit_once(':'))
                .map_or("", |(_, p)| p);
            return format!("port `{port}` is not a number");
        }
        if let Some((_, value)) = query_parameters(url).find(|(k, _)| *k == quoted) {
            return format!("`{quoted}={value}`: not a value it takes");
        }
        return format!("its {quoted} is not valid");
    }
    said
}

/// The host and port part of a URL as written (after the credentials), where it has one.
fn raw_authority(url: &str) -> Option<&str> {
    Some(split_url(url)?.host)
}

/// `url` without the libpq TLS parameters its parser does not take, and those.
fn take_tls_parameters(url: &str) -> (String, TlsParameters) {
    let mut tls = TlsParameters::default();
    // The query as the driver finds it: a password's `?` starts none.
    let Some(query) = split_url(url).and_then(|p| p.query) else {
        return (url.to_string(), tls);
    };
    let base = &url[..url.len() - query.len() - 1];
    let mut kept = Vec::new();
    for kv in query.split('&') {
        match kv.split_once('=') {
            Some(("sslmode", "verify-ca" | "verify-full")) => {
                tls.verified = true;
                kept.push("sslmode=require");
            }
            Some(("sslrootcert", path)) => tls.root_cert = Some(path.to_string()),
            Some(("sslcert", path)) => tls.client_cert = Some(path.to_string()),
            Some(("sslkey", path)) => tls.client_key = Some(path.to_string()),
            _ => kept.push(kv),
        }
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, tls)
}

impl Server {
    /// The server `url` names, what it leaves out taken from the environment as libpq
    /// would (see the module documentation). Connects to nothing; an error where the URL
    /// or `PGPORT` does not parse, no user is given, or `sslmode=disable` is asked for
    /// another machine.
    /// `option` is the option that gave the URL, for messages.
    pub fn from_url(url: &str, option: &str) -> Result<Server> {
        Server::from_url_with(url, option, &|k| std::env::var(k).ok())
    }

    fn from_url_with(
        url: &str,
        option: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Server> {
        // The driver would take what follows the password's first `@` as the host and
        // database: a connection refused with the password's tail in its message.
        if has_stray_at(url) {
            bail!(
                "{option} `{}`: an `@` after the one that ends the user and password: write a password's (or user's) `@` as %40 (and `:` as %3A, `/` as %2F, `?` as %3F, `%` as %25), a database name's as %40",
                without_password(url)
            );
        }
        // `postgres://user@/tmp/sock:5432/db`, a socket's directory not percent-encoded,
        // parses as no host and a database `tmp/sock:5432/db`: connecting would then fail
        // as a server down (exit 5), which a scheduler retries for ever.
        if let Some(db) = raw_database(url).filter(|db| db.contains('/')) {
            bail!(
                "{option} `{}`: the database name `{db}` holds a `/`: a Unix socket's directory goes in the host, percent-encoded (postgres://USER@%2Fvar%2Frun%2Fpostgresql:5432/DATABASE)",
                without_password(url)
            );
        }
        if let Some(mode) = query_parameters(url)
            .find(|(k, _)| *k == "sslmode")
            .map(|(_, v)| v)
            .filter(|m| !SSL_MODES.contains(m))
        {
            bail!(
                "{option} `{}`: sslmode={mode} is not supported: cryptobench takes {} (TLS is always used to another machine, its certificate verified)",
                without_password(url),
                SSL_MODES.join(", ")
            );
        }
        let (parsed, tls) = take_tls_parameters(url);
        let mut config: tokio_postgres::Config = parsed.parse().map_err(|e| {
            anyhow::anyhow!(
                "{option} `{}` is not a PostgreSQL URL ({}); write postgres://USER@HOST:PORT/DATABASE",
                without_password(url),
                bad_url_part(url, &e)
            )
        })?;
        if config.get_hosts().is_empty() {
            match env("PGHOST").filter(|h| !h.is_empty()) {
                Some(h) if h.starts_with('/') => {
                    config.host_path(h);
                }
                Some(h) => {
                    config.host(&h);
                }
                None if Path::new("/var/run/postgresql").is_dir() => {
                    config.host_path("/var/run/postgresql");
                }
                None => {
                    config.host("localhost");
                }
            }
        }
        if config.get_ports().is_empty() {
            let port = match env("PGPORT").filter(|p| !p.is_empty()) {
                Some(p) => p
                    .parse()
                    .map_err(|_| anyhow::anyhow!("PGPORT `{p}` is not a port number"))?,
                None => 5432,
            };
            config.port(port);
        }
        if config.get_user().is_none() {
            let user = env("PGUSER")
                .or_else(|| env("USER"))
                .or_else(|| env("LOGNAME"))
                .filter(|u| !u.is_empty())
                .context("no PostgreSQL user: put one in the URL (postgres://USER@HOST/DB) or set PGUSER")?;
            config.user(&user);
        }
        if config.get_dbname().is_none() {
            let db = env("PGDATABASE")
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| config.get_user().unwrap_or_default().to_string());
            config.dbname(&db);
        }
        let host = config.get_hosts()[0].clone();
        let port = config.get_ports()[0];
        let (host_text, local) = match &host {
            Host::Tcp(h) => (
                h.clone(),
                h == "localhost"
                    || h.parse::<std::net::IpAddr>()
                        .is_ok_and(|ip| ip.is_loopback()),
            ),
            Host::Unix(p) => (p.display().to_string(), true),
        };
        let missing_password_file = env("PGPASSFILE")
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .filter(|f| !f.exists());
        let mut password_from = config.get_password().map(|_| "the URL".to_string());
        if config.get_password().is_none() {
            let password = env("PGPASSWORD")
                .filter(|p| !p.is_empty())
                .map(|p| (p, "PGPASSWORD".to_string()))
                .or_else(|| {
                    let file = env("PGPASSFILE")
                        .map(PathBuf::from)
                        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".pgpass")))?;
                    let pgpass_host = if matches!(host, Host::Unix(_)) {
                        "localhost"
                    } else {
                        host_text.as_str()
                    };
                    let found = pgpass_lookup(
                        &read_password_file(&file)?,
                        pgpass_host,
                        port,
                        config.get_dbname().unwrap_or_default(),
                        config.get_user().unwrap_or_default(),
                    )?;
                    Some((found, format!("the password file `{}`", file.display())))
                });
            if let Some((p, from)) = password {
                config.password(p);
                password_from = Some(from);
            }
        }
        if !local {
            match config.get_ssl_mode() {
                SslMode::Disable => bail!(
                    "{option} `{}`: sslmode=disable to another machine would send the password and results in plain text; plain connections are allowed only over a Unix socket or loopback",
                    without_password(url)
                ),
                _ => {
                    config.ssl_mode(SslMode::Require);
                }
            }
        }
        // libpq's `0` (wait for ever) is the store's default here, as the URL's `0` is to
        // the driver: a CI job waiting on a hung server until its own time limit could
        // not be told to retry.
        if config.get_connect_timeout().is_none() {
            let secs = match env("PGCONNECT_TIMEOUT").filter(|s| !s.trim().is_empty()) {
                Some(s) => s.trim().parse::<i64>().map_err(|_| {
                    anyhow::anyhow!("PGCONNECT_TIMEOUT `{s}` is not a whole number of seconds")
                })?,
                None => 0,
            };
            config.connect_timeout(match u64::try_from(secs) {
                Ok(secs) if secs > 0 => Duration::from_secs(secs),
                _ => CONNECT_TIMEOUT,
            });
        }
        // A server gone without a word (a network cut, a host powered off) would hold a
        // waiting write for the kernel's default of hours, never reaching the reconnect:
        // TCP keepalives and a user timeout say it within about a minute (what the URL
        // sets is kept; a Unix socket has neither).
        if config.get_keepalives_idle() == LIBRARY_KEEPALIVES_IDLE {
            config.keepalives_idle(KEEPALIVES_IDLE);
        }
        if config.get_keepalives_interval().is_none() {
            config.keepalives_interval(Duration::from_secs(10));
        }
        if config.get_keepalives_retries().is_none() {
            config.keepalives_retries(3);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        config.application_name("cryptobench");
        let display = format!(
            "postgres://{}@{}:{}/{}",
            url_part(config.get_user().unwrap_or_default()),
            match &host {
                Host::Unix(_) => url_part(&host_text),
                // An IPv6 address's colons would read as the port's.
                Host::Tcp(h) if h.contains(':') => format!("[{}]", h.replace('%', "%25")),
                Host::Tcp(_) => url_part(&host_text),
            },
            port,
            url_part(config.get_dbname().unwrap_or_default())
        );
        let verify = !local || tls.verified || config.get_ssl_mode() == SslMode::Require;
        let reconnect_for = match env("CRYPTOBENCH_RECONNECT_SECS").filter(|s| !s.is_empty()) {
            Some(s) => Duration::from_secs(s.trim().parse().map_err(|_| {
                anyhow::anyhow!(
                    "CRYPTOBENCH_RECONNECT_SECS `{s}` is not a whole number of seconds (0: never reconnect)"
                )
            })?),
            None => RECONNECT_FOR,
        };
        let statement_limit = match env("CRYPTOBENCH_STATEMENT_SECS").filter(|s| !s.is_empty()) {
            Some(s) => Duration::from_secs(s.trim().parse().map_err(|_| {
                anyhow::anyhow!(
                    "CRYPTOBENCH_STATEMENT_SECS `{s}` is not a whole number of seconds (0: wait for ever)"
                )
            })?),
            None => STATEMENT_LIMIT,
        };
        let home_file = |name: &str| {
            env("HOME")
                .map(|h| Path::new(&h).join(".postgresql").join(name))
                .filter(|p| p.is_file())
        };
        let cert = tls
            .client_cert
            .or_else(|| env("PGSSLCERT"))
            .map(PathBuf::from);
        let key = tls
            .client_key
            .or_else(|| env("PGSSLKEY"))
            .map(PathBuf::from);
        let client_cert = match (cert, key) {
            (Some(cert), Some(key)) => Some((cert, key)),
            (Some(cert), None) => bail!(
                "{option} `{}`: sslcert `{}` without sslkey: give the certificate's key too (sslkey=PATH, or PGSSLKEY)",
                without_password(url),
                cert.display()
            ),
            (None, Some(key)) => bail!(
                "{option} `{}`: sslkey `{}` without sslcert: give the certificate too (sslcert=PATH, or PGSSLCERT)",
                without_password(url),
                key.display()
            ),
            (None, None) => home_file("postgresql.crt").zip(home_file("postgresql.key")),
        };
        let root_cert = match tls.root_cert.or_else(|| env("PGSSLROOTCERT")) {
            Some(system) if system == "system" => None,
            Some(path) => Some(PathBuf::from(path)),
            None => home_file("root.crt"),
        };
        Ok(Server {
            config,
            display,
            root_cert,
            verify,
            client_cert,
            reconnect_for,
            statement_limit,
            remote: !local,
            missing_password_file,
            password_from,
        })
    }

    /// The server as messages name it (never with the password).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// How long one statement may wait for its answer (zero: for ever).
    pub(super) fn statement_limit(&self) -> Duration {
        self.statement_limit
    }

    /// A new connection, its messages carried on `runtime`.
    pub(super) fn connect(&self, runtime: &tokio::runtime::Runtime) -> Result<Link> {
        let mut builder = openssl::ssl::SslConnector::builder(openssl::ssl::SslMethod::tls())?;
        if let Some(ca) = &self.root_cert {
            // OpenSSL's own error is a stack of its internals' names: the file is read
            // here first, so that what is wrong with it can be said in words.
            let text = std::fs::read(ca).map_err(|e| {
                anyhow::anyhow!(
                    "sslrootcert `{}` (or PGSSLROOTCERT): cannot read it: {e}",
                    ca.display()
                )
            })?;
            let authorities = openssl::x509::X509::stack_from_pem(&text)
                .ok()
                .filter(|certs| !certs.is_empty())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "sslrootcert `{}` (or PGSSLROOTCERT) holds no certificate in PEM form (-----BEGIN CERTIFICATE-----): name the file of the authority that signed the server's certificate",
                        ca.display()
                    )
                })?;
            for authority in authorities {
                builder.cert_store_mut().add_cert(authority)?;
            }
        }
        if let Some((cert, key)) = &self.client_cert {
            builder.set_certificate_chain_file(cert).with_context(|| {
                format!(
                    "sslcert `{}` (or PGSSLCERT): cannot read the client certificate (PEM)",
                    cert.display()
                )
            })?;
            builder
                .set_private_key_file(key, openssl::ssl::SslFiletype::PEM)
                .map_err(|e| {
                    // OpenSSL checks the pair as it takes the key.
                    let mismatch = e
                        .errors()
                        .iter()
                        .any(|r| r.reason().is_some_and(|r| r.contains("mismatch")));
                    if mismatch {
                        anyhow::anyhow!(
                            "sslkey `{}` is not the key of sslcert `{}`",
                            key.display(),
                            cert.display()
                        )
                    } else {
                        anyhow::anyhow!(
                            "sslkey `{}` (or PGSSLKEY): cannot read the client certificate's key (PEM): {e}",
                            key.display()
                        )
                    }
                })?;
        }
        if !self.verify {
            builder.set_verify(openssl::ssl::SslVerifyMode::NONE);
        }
        let mut tls = postgres_openssl::MakeTlsConnector::new(builder.build());
        let verify = self.verify;
        tls.set_callback(move |connect, _| {
            connect.set_verify_hostname(verify);
            Ok(())
        });
        // The driver bounds only the socket's connect by `connect_timeout`: a server that
        // takes the connection and never answers (hung, or a proxy without a backend)
        // would hold TLS, start-up and authentication for ever. `connect_timeout` applies
        // to each host, as in libpq.
        let limit = self.connect_timeout() * self.config.get_hosts().len().max(1) as u32;
        // The timer belongs to the runtime: made inside it.
        let connected =
            runtime.block_on(async { tokio::time::timeout(limit, self.config.connect(tls)).await });
        match connected {
            Ok(Ok((client, connection))) => {
                let ended = std::sync::Arc::new(Mutex::new(None));
                let said = ended.clone();
                let carrier = runtime.spawn(async move {
                    if let Err(e) = connection.await {
                        *said.lock().expect("not poisoned") = Some(e);
                    }
                });
                Ok(Link {
                    client,
                    carrier,
                    ended,
                })
            }
            Ok(Err(e)) => Err(self.connect_error(e)),
            Err(_) => Err(anyhow::Error::new(crate::exit::Unreachable(format!(
                "cannot reach the PostgreSQL server {}: no answer within {} s (connect_timeout in the URL, or PGCONNECT_TIMEOUT): is it running and not overloaded, and is the address a PostgreSQL server's?",
                self.display,
                limit.as_secs()
            )))),
        }
    }

    /// How long one host's connection may take, TCP to authentication.
    fn connect_timeout(&self) -> Duration {
        self.config
            .get_connect_timeout()
            .copied()
            .unwrap_or(CONNECT_TIMEOUT)
    }

    /// A new connection in place of one lost part-way (`lost`, first at `since`): tried
    /// again, less often at first, until the server answers or the reconnect window has
    /// passed since the loss. Said on standard error, since the run waits meanwhile.
    pub(super) fn reconnect(
        &self,
        runtime: &tokio::runtime::Runtime,
        lost: &anyhow::Error,
        since: Instant,
    ) -> Result<Link> {
        let why = lost_cause(lost);
        let window = self.reconnect_for.as_secs();
        if self.reconnect_for.is_zero() {
            return Err(self.gave_up(&why, None));
        }
        // A server that takes each new connection and then leaves its statement
        // unanswered (a transaction it froze in holds the rows) is given up on as one
        // that cannot be reached, within the same window.
        if since.elapsed() >= self.reconnect_for {
            return Err(self.gave_up(&why, Some(lost)));
        }
        eprintln!(
            "warning: lost the connection to the PostgreSQL server {} ({why}); connecting again (for up to {window} s)",
            self.display
        );
        let mut pauses = reconnect_pauses();
        loop {
            match self.connect(runtime) {
                Ok(link) => {
                    eprintln!(
                        "connected again to {} after {:.1} s",
                        self.display,
                        since.elapsed().as_secs_f64()
                    );
                    return Ok(link);
                }
                // Refused for a reason of its own (a password changed, the database
                // dropped): no wait mends that.
                Err(e) if !e.is::<crate::exit::Unreachable>() => return Err(e),
                Err(e) => {
                    let left = self.reconnect_for.saturating_sub(since.elapsed());
                    if left.is_zero() {
                        return Err(self.gave_up(&why, Some(&e)));
                    }
                    let pause = pauses.next().expect("pauses never end");
                    std::thread::sleep(pause.min(left));
                }
            }
        }
    }

    /// The lost connection (`why`) as the command's error: unreachable (exit 5), with
    /// the last try's failure where it tried (`last`).
    fn gave_up(&self, why: &str, last: Option<&anyhow::Error>) -> anyhow::Error {
        let tried = match last {
            Some(e) => format!(
                "; tried to connect again for {} s, last: {}",
                self.reconnect_for.as_secs(),
                lost_cause(e)
            ),
            None => "; CRYPTOBENCH_RECONNECT_SECS=0 says not to connect again".to_string(),
        };
        anyhow::Error::new(crate::exit::Unreachable(format!(
            "lost the connection to the PostgreSQL server {} ({why}){tried}",
            self.display
        )))
    }

    /// One line for each way a connection fails.
    fn connect_error(&self, e: tokio_postgres::Error) -> anyhow::Error {
        use tokio_postgres::error::SqlState;
        let user = self.config.get_user().unwrap_or_default();
        let db = self.config.get_dbname().unwrap_or_default();
        match e.code() {
            // Starting up, or shutting down: a server that will be there again soon.
            Some(c) if server_going(c) => anyhow::Error::new(crate::exit::Unreachable(format!(
                "cannot reach the PostgreSQL server {} ({}): try again once it is up",
                self.display,
                e.as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_string())
            ))),
            Some(c) if *c == SqlState::INVALID_PASSWORD => anyhow::anyhow!(
                "the PostgreSQL server {} refused user `{user}`: {}",
                self.display,
                match &self.password_from {
                    Some(from) => format!("wrong password (the one {from} gives)"),
                    None => "wrong password (set PGPASSWORD or ~/.pgpass)".to_string(),
                }
            ),
            // pg_hba.conf said no: its own words say which rule (no TLS, this host, ...).
            Some(c) if *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION => {
                let said = e
                    .as_db_error()
                    .map_or_else(|| "no access".to_string(), |d| d.message().to_string());
                // `cert` in pg_hba.conf: the server wants this client's certificate.
                let hint = if said.contains("certificate") && self.client_cert.is_none() {
                    "; give this client's certificate with sslcert=PATH&sslkey=PATH in the URL (or PGSSLCERT and PGSSLKEY)"
                } else {
                    ""
                };
                anyhow::anyhow!(
                    "the PostgreSQL server {} refused user `{user}`: {said}{hint}",
                    self.display
                )
            }
            Some(c) if *c == SqlState::INVALID_CATALOG_NAME => anyhow::anyhow!(
                "the PostgreSQL server {} has no database `{db}`: create it (`createdb {db}`) or name another",
                self.display
            ),
            _ if e.as_db_error().is_some() => anyhow::anyhow!(
                "the PostgreSQL server {} refused the connection: {}",
                self.display,
                e.as_db_error().expect("checked").message()
            ),
            _ => {
                let why =
                    std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
                // The server answered: these are not an address or a server that is down.
                if why.contains("password missing") {
                    let file = match &self.missing_password_file {
                        Some(f) => format!(
                            " (PGPASSFILE names `{}`, which does not exist)",
                            f.display()
                        ),
                        None => String::new(),
                    };
                    anyhow::anyhow!(
                        "the PostgreSQL server {} asks user `{user}` for a password, and none was given{file}: set PGPASSWORD (in CI, from the job's secret) or ~/.pgpass",
                        self.display
                    )
                } else if why.contains("certificate verify failed") {
                    // OpenSSL's reason comes last: "...:certificate verify failed:...:: IP
                    // address mismatch".
                    let reason = why.rsplit(": ").next().unwrap_or(&why).trim();
                    let host = match self.config.get_hosts().first() {
                        Some(Host::Tcp(h)) => h.clone(),
                        _ => String::new(),
                    };
                    if reason.contains("mismatch") {
                        anyhow::anyhow!(
                            "the PostgreSQL server {}'s TLS certificate does not name `{host}` ({reason}): connect by a name the certificate lists (its subject or alternative names)",
                            self.display
                        )
                    } else if let Some(ca) = &self.root_cert {
                        anyhow::anyhow!(
                            "the PostgreSQL server {}'s TLS certificate cannot be verified against sslrootcert `{}` ({reason}): is that the authority that signed it?",
                            self.display,
                            ca.display()
                        )
                    } else {
                        anyhow::anyhow!(
                            "the PostgreSQL server {}'s TLS certificate cannot be verified ({reason}): give the authority that signed it with sslrootcert=PATH in the URL or PGSSLROOTCERT, or connect over a Unix socket",
                            self.display
                        )
                    }
                } else if self.client_cert.is_some()
                    && (why.contains("alert") || why.contains("Connection reset by peer"))
                {
                    // A TLS alert from the server: it did not take the certificate given.
                    // Under TLS 1.3 it refuses it after the client's side of the handshake,
                    // and may close before the client reads the alert: a reset, then.
                    anyhow::anyhow!(
                        "the PostgreSQL server {} refused this client's TLS certificate ({why}): is sslcert signed by an authority in the server's ssl_ca_file?",
                        self.display
                    )
                } else if why.contains("server does not support TLS") && self.remote {
                    anyhow::anyhow!(
                        "the PostgreSQL server {} does not offer TLS, which cryptobench requires for a server that is not on this machine: turn on `ssl` in its postgresql.conf",
                        self.display
                    )
                } else if why.contains("server does not support TLS") {
                    anyhow::anyhow!(
                        "the PostgreSQL server {} does not offer TLS, which the URL's sslmode (require, verify-ca or verify-full) asks for: turn on `ssl` in its postgresql.conf, or leave sslmode out for a server on this machine",
                        self.display
                    )
                } else {
                    anyhow::Error::new(crate::exit::Unreachable(format!(
                        "cannot reach the PostgreSQL server {} ({why}): is it running, and is the address right?",
                        self.display
                    )))
                }
            }
        }
    }
}

/// `text` as a part of a URL that reads back as the same part: all but RFC 3986's
/// unreserved characters percent-encoded (a socket's directory's `/` above all).
fn url_part(text: &str) -> String {
    let mut part = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            part.push(char::from(b));
        } else {
            part.push_str(&format!("%{b:02X}"));
        }
    }
    part
}

/// The database part of a URL as written, before decoding, where it has one.
fn raw_database(url: &str) -> Option<&str> {
    split_url(url)?.database.filter(|db| !db.is_empty())
}

/// The text of a password file, as libpq takes it: not one that others may read (libpq
/// ignores it, with this warning), which would leave the password open to them.
fn read_password_file(file: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(file).ok()?.permissions().mode();
    if mode & 0o077 != 0 {
        eprintln!(
            "warning: password file `{}` has group or world access; permissions should be u=rw (0600) or less: it is not read",
            file.display()
        );
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The password `~/.pgpass` gives for host, port, database and user: the first line
/// whose fields match (`*` matching any), as libpq reads it.
fn pgpass_lookup(text: &str, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .find_map(|line| {
            let fields = split_pgpass(line);
            if fields.len() != 5 {
                return None;
            }
            let want = [host, port.as_str(), db, user];
            fields[..4]
                .iter()
                .zip(want)
                .all(|(f, w)| f == "*" || f == w)
                .then(|| fields[4].clone())
        })
}

/// A `.pgpass` line's fields: `:` separates them, `\` escapes `:` and `\`.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field").push(next);
                }
            }
            ':' => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

/// Open the store in the database `url` names, creating its tables under the migration
/// lock if it is empty and `purpose` writes.
pub(super) fn open(url: &str, purpose: Purpose, option: &'static str) -> Result<Store> {
    let server = Server::from_url(url, option)?;
    let display = server.display().to_string();
    let store = Store {
        db: Mutex::new(Engine::Postgres(Box::new(
            super::engine::PgConnection::connect(server)?,
        ))),
        path: PathBuf::from(&display),
        option,
        created: false,
    };
    store
        .db()
        .transaction(|db| {
            db.execute("SELECT pg_advisory_xact_lock(?1)", &values![MIGRATION_LOCK])?;
            let tables: Vec<String> = db
                .query(
                    // pg_class, not information_schema, which hides the tables this
                    // role has no privilege on: another application's among them.
                    "SELECT c.relname::text FROM pg_catalog.pg_class c
                     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                     ORDER BY c.relname",
                    &[],
                )?
                .iter()
                .map(|r| r.text(0))
                .collect::<Result<_>>()?;
            if tables.iter().any(|t| t == "cryptobench_schema") {
                let version = db
                    .query_one("SELECT max(version) FROM cryptobench_schema", &[])?
                    .and_then(|r| r.opt_int(0).transpose())
                    .transpose()?
                    .unwrap_or(0);
                if version > SCHEMA_VERSION {
                    bail!(
                        "{display} was written by a newer cryptobench (schema {version}, this one knows {SCHEMA_VERSION}); upgrade, or use another {option}"
                    );
                }
                if version == SCHEMA_VERSION {
                    return Ok(());
                }
                // Schema 5 was the first on PostgreSQL.
                if (5..SCHEMA_VERSION).contains(&version) {
                    if version == 5 {
                        super::migrate::to_schema_6(db)?;
                    }
                    super::migrate::to_schema_7(db)?;
                    db.execute(
                        "UPDATE cryptobench_schema SET version = ?1",
                        &values![SCHEMA_VERSION],
                    )?;
                    return Ok(());
                }
                bail!(
                    "{display} holds cryptobench schema {version}, which no release wrote to PostgreSQL; use another database"
                );
            }
            if !tables.is_empty() {
                bail!(
                    "{display} is another application's database (tables {}), not a cryptobench store; choose another database",
                    tables.join(", ")
                );
            }
            if purpose == Purpose::Read {
                bail!(
                    "{display} holds no cryptobench store yet: `cryptobench push --to` or `run --db` it first"
                );
            }
            db.batch(SCHEMA)?;
            db.batch(INDEXES)?;
            db.batch("CREATE TABLE cryptobench_schema (version INTEGER NOT NULL)")?;
            db.execute(
                "INSERT INTO cryptobench_schema (version) VALUES (?1)",
                &values![SCHEMA_VERSION],
            )?;
            Ok(())
        })
        .map_err(|e| match e.downcast_ref::<tokio_postgres::Error>() {
            // A role without its grants: said as what it may not do and the GRANT that
            // mends it, not as a store that could not be set up.
            Some(pg) if pg.code() == Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) => {
                anyhow::anyhow!(
                    "{option} `{display}`: this role may not use the store ({}): as the tables' owner, GRANT SELECT (to read), or SELECT, INSERT, UPDATE, DELETE (to run and push), ON ALL TABLES IN SCHEMA of the store TO the role; a first run into an empty database needs CREATE on its schema",
                    pg_words(pg)
                )
            }
            Some(_) => lost_connection(&e, Path::new(&display))
                .unwrap_or_else(|| e.context(format!("cannot set up the store in {display}"))),
            None => e,
        })?;
    if purpose == Purpose::Write {
        check_may_write(&store, &display, option)?;
    }
    Ok(store)
}

/// The privileges a run, a push or an import uses on each of the store's tables (a
/// database may hold other applications' tables beside them, which are not the store's to
/// ask about): every write reads what it joins or finds; a run updates its run and cases
/// as they are measured, figures, estimates and baselines are set again in place
/// (`ON CONFLICT DO UPDATE`), and a push replaces an incomplete copy of a run, deleting
/// it. The identity keys' sequences need no grant of their own.
const WRITE_PRIVILEGES: [(&str, &[&str]); 8] = [
    ("machines", &["SELECT", "INSERT"]),
    ("runs", &["SELECT", "INSERT", "UPDATE", "DELETE"]),
    ("cases", &["SELECT", "INSERT", "UPDATE", "DELETE"]),
    ("clusters", &["SELECT", "INSERT", "DELETE"]),
    ("canaries", &["SELECT", "INSERT", "DELETE"]),
    ("estimates", &["SELECT", "INSERT", "UPDATE", "DELETE"]),
    ("figures", &["SELECT", "INSERT", "UPDATE", "DELETE"]),
    ("baselines", &["SELECT", "INSERT", "UPDATE", "DELETE"]),
];

/// A role that may read the store but not write all it writes is refused at open: found
/// at the first write instead, `run --push-to` would have measured the whole run first.
fn check_may_write(store: &Store, display: &str, option: &str) -> Result<()> {
    let read = |e| {
        lost_connection(&e, Path::new(display))
            .unwrap_or_else(|| e.context(format!("cannot read the privileges in {display}")))
    };
    let wanted = WRITE_PRIVILEGES
        .iter()
        .flat_map(|(table, privileges)| {
            privileges
                .iter()
                .map(move |p| format!("('{table}', '{p}')"))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let lacking: Vec<(String, String)> = store
        .db()
        .query(
            &format!(
                "SELECT w.tbl, w.privilege FROM (VALUES {wanted}) AS w (tbl, privilege)
                 JOIN pg_catalog.pg_class c ON c.relname = w.tbl
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
                   AND NOT has_table_privilege(c.oid, w.privilege)"
            ),
            &[],
        )
        .map_err(read)?
        .iter()
        .map(|r| Ok((r.text(0)?, r.text(1)?)))
        .collect::<Result<_>>()?;
    if lacking.is_empty() {
        return Ok(());
    }
    let role = match store
        .db()
        .query_one("SELECT current_user::text", &[])
        .map_err(read)?
    {
        Some(r) => r.text(0)?,
        None => Default::default(),
    };
    bail!(
        "{option} `{display}`: role `{role}` may not write to this store (it lacks {}): as the tables' owner, {}; or name a role that may write",
        missing_privileges(&lacking),
        grants(&lacking, &role)
    )
}

/// What `lacking` (table, privilege) pairs say, a table's privileges together in the
/// store's order: `UPDATE, DELETE on runs; DELETE on clusters`.
fn missing_privileges(lacking: &[(String, String)]) -> String {
    by_table(lacking)
        .iter()
        .map(|(table, privileges)| format!("{} on {table}", privileges.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The GRANT statements that give `role` the `lacking` privileges, the tables that lack
/// the same ones in one statement.
fn grants(lacking: &[(String, String)], role: &str) -> String {
    let mut statements: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
    for (table, privileges) in by_table(lacking) {
        match statements.iter_mut().find(|(p, _)| *p == privileges) {
            Some((_, tables)) => tables.push(table),
            None => statements.push((privileges, vec![table])),
        }
    }
    statements
        .iter()
        .map(|(privileges, tables)| {
            format!(
                "GRANT {} ON {} TO {role}",
                privileges.join(", "),
                tables.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `lacking` by table, tables and privileges in [`WRITE_PRIVILEGES`]' order.
fn by_table(lacking: &[(String, String)]) -> Vec<(&'static str, Vec<&'static str>)> {
    WRITE_PRIVILEGES
        .iter()
        .filter_map(|(table, privileges)| {
            let missing: Vec<&str> = privileges
                .iter()
                .copied()
                .filter(|p| lacking.iter().any(|(t, l)| t == table && l == p))
                .collect();
            (!missing.is_empty()).then_some((*table, missing))
        })
        .collect()
}

/// Whether `e` is a connection lost part-way (closed, the server shutting down, or the
/// socket's own error), which a new connection may mend; not an error of the statement.
pub(super) fn is_lost(e: &anyhow::Error) -> bool {
    e.is::<Unanswered>()
        || e.chain()
            .filter_map(|c| c.downcast_ref::<tokio_postgres::Error>())
            .any(|pg| {
                pg.is_closed()
                    || pg.code().is_some_and(server_going)
                    || std::error::Error::source(pg).is_some_and(|s| s.is::<std::io::Error>())
            })
}

/// Whether the server said it is shutting down, crashed or still starting: it goes or
/// comes, and says nothing of the statement.
fn server_going(code: &tokio_postgres::error::SqlState) -> bool {
    use tokio_postgres::error::SqlState;
    [
        SqlState::ADMIN_SHUTDOWN,
        SqlState::CRASH_SHUTDOWN,
        SqlState::CANNOT_CONNECT_NOW,
    ]
    .contains(code)
}

/// What a lost connection's error says, for a message (the driver's own words, or its
/// cause's where those are only "connection closed").
fn lost_cause(e: &anyhow::Error) -> String {
    match e
        .chain()
        .find_map(|c| c.downcast_ref::<tokio_postgres::Error>())
    {
        Some(pg) => pg_words(pg),
        None => e.to_string(),
    }
}

/// A driver error in words: the server's message where it sent one (the error itself
/// says only "db error"), else the error and its cause.
fn pg_words(pg: &tokio_postgres::Error) -> String {
    if let Some(db) = pg.as_db_error() {
        return db.message().to_string();
    }
    match std::error::Error::source(pg) {
        Some(cause) => format!("{pg}: {cause}"),
        None => pg.to_string(),
    }
}

/// A connection lost mid-way (the server stopped, restarted or the network dropped), as
/// one line naming the server.
pub(super) fn lost_connection(e: &anyhow::Error, server: &Path) -> Option<anyhow::Error> {
    if let Some(unanswered) = e.downcast_ref::<Unanswered>() {
        return Some(anyhow::Error::new(crate::exit::Unreachable(format!(
            "lost the connection to the PostgreSQL server {} ({unanswered})",
            server.display()
        ))));
    }
    let pg = e.downcast_ref::<tokio_postgres::Error>()?;
    let going = pg.code().is_some_and(server_going);
    (pg.is_closed() || going || pg.as_db_error().is_none()).then(|| {
        anyhow::Error::new(crate::exit::Unreachable(format!(
            "lost the connection to the PostgreSQL server {} ({})",
            server.display(),
            pg_words(pg)
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_password_file_others_may_read_is_not_read() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("pgpass");
        std::fs::write(&file, "h:5432:r:u:s3cret\n").unwrap();
        let password = |mode: u32| {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            let path = file.display().to_string();
            let env = move |k: &str| (k == "PGPASSFILE").then(|| path.clone());
            let s = Server::from_url_with("postgres://u@h:5432/r", "--db", &env).unwrap();
            s.config.get_password().map(<[u8]>::to_vec)
        };
        assert_eq!(password(0o600), Some(b"s3cret".to_vec()));
        assert_eq!(password(0o644), None);
        assert_eq!(password(0o640), None);
    }

    #[test]
    fn a_url_is_completed_from_the_pg_variables() {
        let s = Server::from_url_with(
            "postgres:///results",
            "--db",
            &env(&[
                ("PGHOST", "db.example"),
                ("PGPORT", "6543"),
                ("PGUSER", "ci"),
            ]),
        )
        .unwrap();
        assert_eq!(s.display(), "postgres://ci@db.example:6543/results");
        assert_eq!(s.config.get_ssl_mode(), SslMode::Require);
        let s = Server::from_url_with(
            "postgres://bench@127.0.0.1/r",
            "--db",
            &env(&[("PGPASSWORD", "s3cret")]),
        )
        .unwrap();
        assert_eq!(s.config.get_ssl_mode(), SslMode::Prefer);
        assert_eq!(s.config.get_password(), Some(&b"s3cret"[..]));
        assert!(!s.display().contains("s3cret"));
        assert_eq!(s.reconnect_for, RECONNECT_FOR);
        assert_eq!(s.config.get_keepalives_idle(), KEEPALIVES_IDLE);
        assert_eq!(s.config.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
        let own = Server::from_url_with(
            "postgres://u@h/r?keepalives_idle=300&tcp_user_timeout=5",
            "--db",
            &env(&[]),
        )
        .unwrap();
        assert_eq!(own.config.get_keepalives_idle(), Duration::from_secs(300));
        assert_eq!(
            own.config.get_tcp_user_timeout(),
            Some(&Duration::from_secs(5))
        );
        let never = Server::from_url_with(
            "postgres://u@h/r",
            "--db",
            &env(&[("CRYPTOBENCH_RECONNECT_SECS", "0")]),
        )
        .unwrap();
        assert!(never.reconnect_for.is_zero());
    }

    #[test]
    fn plain_text_to_another_machine_is_refused_without_the_password() {
        let err = Server::from_url_with(
            "postgres://u:hunter2@db.example/r?sslmode=disable",
            "--db",
            &env(&[]),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("plain connections are allowed only"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        let err = Server::from_url_with("postgres://u:hunter2@[bad/r", "--db", &env(&[]))
            .err()
            .unwrap()
            .to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[test]
    fn pgpass_lines_match_as_libpq_matches_them() {
        let file = "# comment\nother:5432:*:*:no\n*:5432:r:ci:first\\:part\nlocalhost:*:*:*:any\n";
        assert_eq!(
            pgpass_lookup(file, "db", 5432, "r", "ci").as_deref(),
            Some("first:part")
        );
        assert_eq!(
            pgpass_lookup(file, "localhost", 1, "x", "y").as_deref(),
            Some("any")
        );
        assert_eq!(pgpass_lookup(file, "db", 5433, "r", "ci"), None);
    }

    #[test]
    fn libpq_tls_parameters_are_taken_and_the_certificate_checked_unless_on_loopback() {
        let (url, tls) = take_tls_parameters(
            "postgres://u@h/db?sslmode=verify-full&sslrootcert=/ca.crt&x=1&sslcert=/c.crt&sslkey=/c.key",
        );
        assert_eq!(url, "postgres://u@h/db?sslmode=require&x=1");
        assert_eq!(
            tls,
            TlsParameters {
                verified: true,
                root_cert: Some("/ca.crt".into()),
                client_cert: Some("/c.crt".into()),
                client_key: Some("/c.key".into()),
            }
        );
        assert_eq!(
            take_tls_parameters("postgres://u@h/db?sslrootcert=system").0,
            "postgres://u@h/db"
        );
        let server = |url: &str| Server::from_url_with(url, "--db", &env(&[])).unwrap();
        // Another machine: always checked, whatever the URL says.
        assert!(server("postgres://u@db.example.org/x").verify);
        assert!(server("postgres://u@db.example.org/x?sslmode=prefer").verify);
        // Loopback: checked only where TLS was asked for.
        assert!(!server("postgres://u@127.0.0.1/x").verify);
        assert!(server("postgres://u@127.0.0.1/x?sslmode=require").verify);
        assert!(server("postgres://u@localhost/x?sslmode=verify-ca").verify);
        let with_root = server("postgres://u@localhost/x?sslmode=verify-full&sslrootcert=/r.crt");
        assert_eq!(with_root.root_cert.as_deref(), Some(Path::new("/r.crt")));
        assert_eq!(
            server("postgres://u@h/x?sslrootcert=system").root_cert,
            None
        );
    }

    #[test]
    fn missing_write_privileges_are_said_as_the_grants_that_give_them() {
        let lacking: Vec<(String, String)> = [
            ("clusters", "DELETE"),
            ("runs", "DELETE"),
            ("runs", "UPDATE"),
            ("canaries", "DELETE"),
        ]
        .iter()
        .map(|(t, p)| (t.to_string(), p.to_string()))
        .collect();
        assert_eq!(
            missing_privileges(&lacking),
            "UPDATE, DELETE on runs; DELETE on clusters; DELETE on canaries"
        );
        assert_eq!(
            grants(&lacking, "ci"),
            "GRANT UPDATE, DELETE ON runs TO ci; GRANT DELETE ON clusters, canaries TO ci"
        );
    }

    #[test]
    fn a_bad_part_of_a_url_is_named() {
        let refused = |url: &str| {
            Server::from_url_with(url, "--db", &env(&[]))
                .err()
                .unwrap()
                .to_string()
        };
        for (url, said) in [
            (
                "postgres://u@h:notaport/r",
                "port `notaport` is not a number",
            ),
            ("postgres://u@h/r?foo=bar", "unknown parameter `foo`"),
            (
                "postgres://u@h/r?connect_timeout=soon",
                "`connect_timeout=soon`",
            ),
            (
                "postgres://u@h/r?sslmode=allow",
                "sslmode=allow is not supported",
            ),
            (
                "postgres://u@h/r?sslmode=bogus",
                "sslmode=bogus is not supported",
            ),
        ] {
            let err = refused(url);
            assert!(err.contains(said), "{url}: {err}");
        }
    }

    #[test]
    fn a_server_back_from_a_restart_is_tried_again_within_a_second() {
        let pauses: Vec<Duration> = reconnect_pauses().take(12).collect();
        assert_eq!(pauses[0], Duration::from_millis(200));
        assert!(
            pauses.iter().all(|p| *p <= Duration::from_secs(1)),
            "{pauses:?}"
        );
        // ... and not hammered: every second once the first tries have failed.
        assert_eq!(pauses[11], Duration::from_secs(1));
    }

    /// The audit's URLs: a password holding `/` and `?` is the driver's whole, its
    /// parameters still found after it; one holding an unencoded `@` is refused without
    /// the tail the driver would have read as the host or database.
    #[test]
    fn a_password_s_slash_question_mark_or_at_shows_nowhere() {
        let s = Server::from_url_with(
            "postgres://slash2:Tr0ub/4dor?x@127.0.0.1:55432/fleet?sslmode=verify-full&sslrootcert=/r.crt",
            "--db",
            &env(&[]),
        )
        .unwrap();
        assert_eq!(s.config.get_password(), Some(&b"Tr0ub/4dor?x"[..]));
        assert_eq!(s.display(), "postgres://slash2@127.0.0.1:55432/fleet");
        assert_eq!(s.root_cert.as_deref(), Some(Path::new("/r.crt")));
        assert!(s.verify);
        assert_eq!(s.password_from.as_deref(), Some("the URL"));
        for url in [
            "postgres://sp:p@ss:w/rd%x@127.0.0.1:55432/fleet",
            "postgres://sp:p@ss@127.0.0.1:55432/fleet",
        ] {
            let err = Server::from_url_with(url, "--db", &env(&[]))
                .err()
                .unwrap()
                .to_string();
            assert!(
                err.starts_with("--db `postgres://sp:***@127.0.0.1:55432/fleet`: an `@` after"),
                "{err}"
            );
            for tail in ["ss:w", "rd%x", "ss%40", "ss@"] {
                assert!(!err.contains(tail), "{err}");
            }
        }
        let from = |vars: &'static [(&'static str, &'static str)]| {
            Server::from_url_with("postgres://u@h/r", "--db", &env(vars))
                .unwrap()
                .password_from
        };
        assert_eq!(from(&[("PGPASSWORD", "p")]).as_deref(), Some("PGPASSWORD"));
        assert_eq!(from(&[("PGPASSFILE", "/nonexistent")]), None);
    }

    #[test]
    fn passwords_are_hidden_from_urls() {
        assert_eq!(
            without_password("postgres://u:p@h:1/d"),
            "postgres://u:***@h:1/d"
        );
        assert_eq!(without_password("postgres://u@h/d"), "postgres://u@h/d");
        assert_eq!(
            without_password("postgres://h/d?user=u&password=p"),
            "postgres://h/d?user=u&password=***"
        );
    }
}
