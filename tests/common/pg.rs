//! A throw-away PostgreSQL server from Debian's packages, on a Unix socket in a scratch
//! directory: what the shared-store tests write to. A test that needs one fails, never
//! skips, when it cannot be started (scripts/setup.sh installs the packages).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// Listening on 127.0.0.1 with TLS (its certificate, `server.crt`, in `dir`).
    tls: bool,
}

/// The newest installed server's programs.
fn server_bin() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's server is not installed (/usr/lib/postgresql): run scripts/setup.sh")
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|b| b.join("pg_ctl").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions
        .pop()
        .expect("no pg_ctl under /usr/lib/postgresql/*/bin: run scripts/setup.sh")
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// `program args…` as the server's owner: `postgres` when the tests run as root (the
/// server refuses to run as root), else whoever runs the tests.
fn as_owner(program: &Path, args: &[&str]) -> Output {
    let mut c = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    let out = c
        .args(args)
        .env_remove("PGHOST")
        .env_remove("PGPORT")
        .current_dir("/")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl PgServer {
    /// A new cluster, started: user `postgres` trusted, user `guarded` (password
    /// `right`) by password only.
    pub fn start() -> PgServer {
        PgServer::start_as(false)
    }

    /// A cluster that also listens on 127.0.0.1 and takes TCP connections only over TLS,
    /// with a self-signed certificate for `localhost` and 127.0.0.1 ([`PgServer::certificate`]).
    pub fn start_with_tls() -> PgServer {
        PgServer::start_as(true)
    }

    /// The TLS server's certificate, for `PGSSLROOTCERT`.
    pub fn certificate(&self) -> PathBuf {
        self.dir.path().join("server.crt")
    }

    /// The URL of database `db` over TCP to 127.0.0.1, with `query` appended.
    pub fn tcp_url(&self, db: &str, query: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}{query}", self.port)
    }

    fn start_as(tls: bool) -> PgServer {
        let bin = server_bin();
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).unwrap();
        if is_root() {
            let out = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&data)
                .output()
                .unwrap();
            assert!(out.status.success(), "chown: {out:?}");
        }
        as_owner(
            &bin.join("initdb"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        // `certified` must show a certificate the server's authority signed, for its name.
        let hba = "local all guarded scram-sha-256\nlocal all all trust\n\
                   hostssl all certified 127.0.0.1/32 cert\n\
                   hostssl all all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 reject\n";
        if tls {
            write_certificate(dir.path(), &data);
            write_client_certificates(dir.path(), &data);
        }
        let hba_path = data.join("pg_hba.conf");
        // Written through the owner's permissions: as root, write then hand it over.
        std::fs::write(&hba_path, hba).unwrap();
        if is_root() {
            Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&hba_path)
                .output()
                .unwrap();
        }
        let server = PgServer {
            dir,
            bin,
            port: free_port(),
            tls,
        };
        server.start_again();
        server.psql("postgres", "CREATE ROLE guarded LOGIN PASSWORD 'right'");
        server.psql("postgres", "CREATE DATABASE guarded OWNER guarded");
        server.psql("postgres", "CREATE ROLE certified LOGIN");
        server
    }

    /// A client certificate and its key, for `certified`: `client` signed by the
    /// authority the TLS server trusts, `stranger` by itself.
    pub fn client_certificate(&self, which: &str) -> (PathBuf, PathBuf) {
        let dir = self.dir.path();
        (
            dir.join(format!("{which}.crt")),
            dir.join(format!("{which}.key")),
        )
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The socket's directory.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Start it (again), and wait until it takes connections.
    pub fn start_again(&self) {
        let mut options = format!(
            "-c unix_socket_directories={} -c port={} -c fsync=off -c full_page_writes=off",
            self.socket_dir().display(),
            self.port
        );
        if self.tls {
            options
                .push_str(" -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_ca_file=client-ca.crt");
        } else {
            options.push_str(" -c listen_addresses=''");
        }
        as_owner(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-l",
                self.dir.path().join("server.log").to_str().unwrap(),
                "-w",
                "-o",
                &options,
                "start",
            ],
        );
    }

    /// Stop it at once (connections are cut).
    pub fn stop(&self) {
        as_owner(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                "stop",
            ],
        );
    }

    /// The URL of database `db` as user `user`.
    pub fn url_as(&self, user: &str, db: &str) -> String {
        let host = self.socket_dir().display().to_string().replace('/', "%2F");
        format!("postgres://{user}@{host}:{}/{db}", self.port)
    }

    /// A new, empty database, and its URL.
    pub fn new_database(&self, name: &str) -> String {
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url_as("postgres", name)
    }

    /// `sql` in database `db`, its rows as psql's unaligned output.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = as_owner(
            &self.bin.join("psql"),
            &[
                "-h",
                self.socket_dir().to_str().unwrap(),
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                db,
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ],
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = Command::new(if is_root() { "runuser" } else { "sh" })
            .args(if is_root() {
                vec!["-u", "postgres", "--"]
            } else {
                vec!["-c", "exec \"$0\" \"$@\""]
            })
            .arg(self.bin.join("pg_ctl"))
            .args([
                "-D",
                self.data().to_str().unwrap(),
                "-m",
                "immediate",
                "stop",
            ])
            .output();
    }
}

/// A self-signed certificate for `localhost` and 127.0.0.1: `server.crt` in `dir` (for
/// the client), and the server's copies of it and its key in `data`, owned by the server.
/// An authority the server trusts for client certificates (`client-ca.crt` in the data
/// directory), a certificate it signed for user `certified` (`client.crt`, `client.key`
/// in `dir`), and one for the same user signed by itself (`stranger.*`).
fn write_client_certificates(dir: &Path, data: &Path) {
    use openssl::asn1::Asn1Time;
    use openssl::hash::MessageDigest;
    use openssl::pkey::{PKey, Private};
    use openssl::rsa::Rsa;
    use openssl::x509::extension::BasicConstraints;
    use openssl::x509::{X509, X509NameBuilder};

    let named = |cn: &str| {
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", cn).unwrap();
        name.build()
    };
    let make =
        |cn: &str, key: &PKey<Private>, issuer: Option<(&X509, &PKey<Private>)>, ca: bool| {
            let mut cert = X509::builder().unwrap();
            cert.set_version(2).unwrap();
            cert.set_subject_name(&named(cn)).unwrap();
            match issuer {
                Some((by, _)) => cert.set_issuer_name(by.subject_name()).unwrap(),
                None => cert.set_issuer_name(&named(cn)).unwrap(),
            }
            cert.set_pubkey(key).unwrap();
            cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
                .unwrap();
            cert.set_not_after(&Asn1Time::days_from_now(2).unwrap())
                .unwrap();
            if ca {
                cert.append_extension(BasicConstraints::new().critical().ca().build().unwrap())
                    .unwrap();
            }
            let signer = issuer.map_or(key, |(_, k)| k);
            cert.sign(signer, MessageDigest::sha256()).unwrap();
            cert.build()
        };
    let new_key = || PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let ca_key = new_key();
    let ca = make("cryptobench test client authority", &ca_key, None, true);
    let ca_path = data.join("client-ca.crt");
    std::fs::write(&ca_path, ca.to_pem().unwrap()).unwrap();
    if is_root() {
        Command::new("chown")
            .args(["postgres:postgres"])
            .arg(&ca_path)
            .output()
            .unwrap();
    }
    for (which, issuer) in [("client", Some((&ca, &ca_key))), ("stranger", None)] {
        let key = new_key();
        let cert = make("certified", &key, issuer, false);
        std::fs::write(dir.join(format!("{which}.crt")), cert.to_pem().unwrap()).unwrap();
        let key_path = dir.join(format!("{which}.key"));
        std::fs::write(&key_path, key.private_key_to_pem_pkcs8().unwrap()).unwrap();
        std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

fn write_certificate(dir: &Path, data: &Path) {
    use openssl::asn1::Asn1Time;
    use openssl::hash::MessageDigest;
    use openssl::pkey::PKey;
    use openssl::rsa::Rsa;
    use openssl::x509::extension::SubjectAlternativeName;
    use openssl::x509::{X509, X509NameBuilder};

    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "localhost").unwrap();
    let name = name.build();
    let mut cert = X509::builder().unwrap();
    cert.set_version(2).unwrap();
    cert.set_subject_name(&name).unwrap();
    cert.set_issuer_name(&name).unwrap();
    cert.set_pubkey(&key).unwrap();
    cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
        .unwrap();
    cert.set_not_after(&Asn1Time::days_from_now(2).unwrap())
        .unwrap();
    let san = SubjectAlternativeName::new()
        .dns("localhost")
        .ip("127.0.0.1")
        .build(&cert.x509v3_context(None, None))
        .unwrap();
    cert.append_extension(san).unwrap();
    cert.sign(&key, MessageDigest::sha256()).unwrap();
    let pem = cert.build().to_pem().unwrap();
    std::fs::write(dir.join("server.crt"), &pem).unwrap();
    std::fs::write(data.join("server.crt"), &pem).unwrap();
    let key_path = data.join("server.key");
    std::fs::write(&key_path, key.private_key_to_pem_pkcs8().unwrap()).unwrap();
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    if is_root() {
        for f in ["server.crt", "server.key"] {
            Command::new("chown")
                .args(["postgres:postgres"])
                .arg(data.join(f))
                .output()
                .unwrap();
        }
    }
}
