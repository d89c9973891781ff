//! A store's URL as the PostgreSQL driver reads it, and as messages and records show it:
//! one split for both, so that what is hidden is what the connection took as the
//! password. tokio-postgres's parser takes the credentials up to the *first* `@` of the
//! whole text (a password's `/` or `?` stays in it), then the host up to `/` or `?`, the
//! database up to `?`, and `key=value` parameters split at `&`, keys percent-decoded.

/// A URL's parts, as the driver's parser splits `scheme://credentials@host/database?query`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UrlParts<'a> {
    /// Everything up to and including `://`.
    pub scheme: &'a str,
    /// `user` or `user:password`, as written (percent-encoded): up to the first `@`.
    pub credentials: Option<&'a str>,
    /// Host(s) and port(s), up to the first `/` or `?` after the credentials.
    pub host: &'a str,
    /// After the `/` that ends the host, up to the next `?` (possibly empty).
    pub database: Option<&'a str>,
    /// After that `?`.
    pub query: Option<&'a str>,
}

/// `url` split where tokio-postgres's `Config::from_str` splits it, whatever its scheme
/// (another scheme's text is split alike, for messages). `None` without `://`.
pub fn split_url(url: &str) -> Option<UrlParts<'_>> {
    let at = url.find("://")? + 3;
    let (scheme, rest) = url.split_at(at);
    Some(split_after_credentials(scheme, rest, rest.find('@')))
}

/// The parts of `rest` (after the scheme) with the credentials ending at the `@` at
/// `at`, where there is one.
fn split_after_credentials<'a>(scheme: &'a str, rest: &'a str, at: Option<usize>) -> UrlParts<'a> {
    let (credentials, rest) = match at {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    };
    let host_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (host, rest) = rest.split_at(host_end);
    let (database, query) = match rest.strip_prefix('/') {
        Some(path) => match path.split_once('?') {
            Some((db, q)) => (Some(db), Some(q)),
            None => (Some(path), None),
        },
        None => (None, rest.strip_prefix('?')),
    };
    UrlParts {
        scheme,
        credentials,
        host,
        database,
        query,
    }
}

/// The split a message may show: the driver's, but with the credentials stretched to
/// the last `@` that cannot be anything else's. An unencoded `@` in a password
/// (`postgres://u:p@ss@host/db`) ends the driver's credentials early, leaving the
/// password's tail in what reads as the host, the database or a parameter's name:
/// text that a message must not echo either.
fn shown_split(url: &str) -> Option<UrlParts<'_>> {
    let at = url.find("://")? + 3;
    let (scheme, rest) = url.split_at(at);
    let mut end = rest.find('@');
    loop {
        let parts = split_after_credentials(scheme, rest, end);
        if end.is_none() {
            return Some(parts);
        }
        // A host never holds an `@`, nor does a database name or a parameter's name
        // that the driver would take (they would be percent-encoded); a value may.
        let stray = [parts.host, parts.database.unwrap_or_default()]
            .into_iter()
            .chain(parts.query.into_iter().flat_map(|q| {
                q.split('&')
                    .map(|kv| kv.split_once('=').map_or(kv, |(k, _)| k))
            }))
            .filter_map(|text| {
                let i = text.rfind('@')?;
                Some(text.as_ptr() as usize - rest.as_ptr() as usize + i)
            })
            .max();
        match stray {
            Some(i) => end = Some(i),
            None => return Some(parts),
        }
    }
}

/// Whether the driver would read `url`'s credentials as other than what they are: an
/// `@` after the one that ends them, where only an unencoded `@` in the password (or
/// user) puts one. Connecting with what the driver takes would fail as a bad host or
/// database, whose message would show the password's tail.
pub fn has_stray_at(url: &str) -> bool {
    split_url(url).map(|p| p.credentials) != shown_split(url).map(|p| p.credentials)
}

/// `text` percent-decoded (an invalid escape kept as written), for parameter names.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A URL as messages print it: its password, if it has one, replaced, in the
/// credentials or as a `password` parameter, wherever the driver would find it.
pub fn without_password(url: &str) -> String {
    let Some(parts) = shown_split(url) else {
        return url.to_string();
    };
    let mut shown = parts.scheme.to_string();
    if let Some(credentials) = parts.credentials {
        match credentials.split_once(':') {
            Some((user, _)) => shown.push_str(&format!("{user}:***@")),
            None => shown.push_str(&format!("{credentials}@")),
        }
    }
    shown.push_str(parts.host);
    if let Some(db) = parts.database {
        shown.push('/');
        shown.push_str(db);
    }
    if let Some(query) = parts.query {
        shown.push('?');
        let hidden: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((key, _)) if percent_decoded(key) == "password" => format!("{key}=***"),
                _ => kv.to_string(),
            })
            .collect();
        shown.push_str(&hidden.join("&"));
    }
    shown
}

/// The libpq keywords whose `keyword=value` marks a connection string of that form.
const CONNINFO_KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "sslmode",
    "service",
    "connect_timeout",
    "options",
    "application_name",
];

/// Whether `text` is a libpq `keyword=value` connection string (`host=db user=ci
/// dbname=bench`): it starts with one of libpq's keywords and `=`, or has one after a
/// space. A file's path in that form would be written `./host=…`.
pub fn is_conninfo(text: &str) -> bool {
    let mut starts = std::iter::once(0).chain(
        text.char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, c)| i + c.len_utf8()),
    );
    starts.any(|i| {
        let rest = text[i..].trim_start();
        CONNINFO_KEYWORDS.iter().any(|k| {
            rest.strip_prefix(k)
                .is_some_and(|after| after.trim_start().starts_with('='))
        })
    })
}

/// A libpq connection string with its password's value replaced (quoted or not).
fn conninfo_without_password(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("password") {
        let before_ok = i == 0 || rest[..i].ends_with(char::is_whitespace);
        let after = rest[i + "password".len()..].trim_start();
        if !(before_ok && after.starts_with('=')) {
            shown.push_str(&rest[..i + "password".len()]);
            rest = &rest[i + "password".len()..];
            continue;
        }
        shown.push_str(&rest[..i]);
        shown.push_str("password=***");
        let value = after[1..].trim_start();
        // A quoted value runs to its closing quote (`\'` and `\\` escaped), any other to
        // the next space.
        let end = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            quoted
                .char_indices()
                .find(|&(_, c)| {
                    let closes = c == '\'' && !escaped;
                    escaped = c == '\\' && !escaped;
                    closes
                })
                .map_or(value.len(), |(j, _)| j + 2)
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        rest = &value[end..];
    }
    shown.push_str(rest);
    shown
}

/// An argument as a run's record keeps it: a URL (alone, or in `--db=URL`) or a libpq
/// connection string without its password, anything else as it is.
pub fn shown_argument(argument: &str) -> String {
    let argument = if argument.contains("://") {
        without_password(argument)
    } else {
        argument.to_string()
    };
    if argument.contains("password") {
        conninfo_without_password(&argument)
    } else {
        argument
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The URLs of the audit: a password holding `/` and `?`, as the driver takes it
    /// (everything to the first `@`), is hidden whole.
    #[test]
    fn a_password_is_hidden_where_the_driver_finds_it() {
        for (url, shown) in [
            (
                "postgres://slash2:Tr0ub/4dor?x@127.0.0.1:55432/fleet",
                "postgres://slash2:***@127.0.0.1:55432/fleet",
            ),
            (
                "--db=postgresql://a:b?c/d@h/db?sslmode=require",
                "--db=postgresql://a:***@h/db?sslmode=require",
            ),
            ("postgres://u:p@h:1/d", "postgres://u:***@h:1/d"),
            ("postgres://u@h/d", "postgres://u@h/d"),
            (
                "postgres://h/d?user=u&password=p",
                "postgres://h/d?user=u&password=***",
            ),
            (
                "postgres://h/d?pass%77ord=p&x=1",
                "postgres://h/d?pass%77ord=***&x=1",
            ),
            (
                "postgres://u:Tr0ub/4dor?x@h/d?password=p",
                "postgres://u:***@h/d?password=***",
            ),
            // Unencoded `@`s: the password's tail is never shown as a host, database
            // or parameter.
            (
                "postgres://sp:p@ss@127.0.0.1:55432/fleet",
                "postgres://sp:***@127.0.0.1:55432/fleet",
            ),
            (
                "postgres://sp:p@ss:w/rd%x@127.0.0.1:55432/fleet",
                "postgres://sp:***@127.0.0.1:55432/fleet",
            ),
            ("postgres://u:p@s?s@host/db", "postgres://u:***@host/db"),
            // An `@` in a parameter's value is the value's.
            (
                "postgres://u:p@h/d?options=a@b",
                "postgres://u:***@h/d?options=a@b",
            ),
            ("mysql://root:pw@db/x", "mysql://root:***@db/x"),
        ] {
            assert_eq!(without_password(url), shown, "{url}");
            assert!(!shown_argument(url).contains("Tr0ub"), "{url}");
        }
    }

    #[test]
    fn the_driver_s_split_is_the_first_at() {
        let parts = split_url("postgres://slash2:Tr0ub/4dor?x@127.0.0.1:55432/fleet?a=b").unwrap();
        assert_eq!(parts.credentials, Some("slash2:Tr0ub/4dor?x"));
        assert_eq!(parts.host, "127.0.0.1:55432");
        assert_eq!(parts.database, Some("fleet"));
        assert_eq!(parts.query, Some("a=b"));
        let parts = split_url("postgres://h?a=b/c").unwrap();
        assert_eq!(
            (parts.host, parts.database, parts.query),
            ("h", None, Some("a=b/c"))
        );
        assert!(has_stray_at("postgres://sp:p@ss@127.0.0.1:55432/fleet"));
        assert!(has_stray_at(
            "postgres://sp:p@ss:w/rd%x@127.0.0.1:55432/fleet"
        ));
        assert!(!has_stray_at(
            "postgres://slash2:Tr0ub/4dor?x@127.0.0.1:55432/fleet"
        ));
        assert!(!has_stray_at("postgres://u@h/d?options=a@b"));
    }

    /// A run's record keeps no password: a URL's, alone or after `--db=`, or as a
    /// `password=` parameter, or a connection string's; other arguments as they are.
    #[test]
    fn a_recorded_argument_keeps_no_password() {
        assert_eq!(
            shown_argument("postgres://ci:s3cret@db.lab:5432/bench"),
            "postgres://ci:***@db.lab:5432/bench"
        );
        assert_eq!(
            shown_argument("--db=postgresql://ci:s3cret@db/bench?sslmode=require"),
            "--db=postgresql://ci:***@db/bench?sslmode=require"
        );
        assert_eq!(
            shown_argument("postgres://db/bench?user=ci&password=s3cret"),
            "postgres://db/bench?user=ci&password=***"
        );
        assert_eq!(
            shown_argument("host=127.0.0.1 port=55432 user=bench password=sekrit123 dbname=fleet"),
            "host=127.0.0.1 port=55432 user=bench password=*** dbname=fleet"
        );
        assert_eq!(
            shown_argument("host=h password = 'a b\\' c' dbname=f"),
            "host=h password=*** dbname=f"
        );
        for kept in [
            "postgres://ci@db/bench",
            "user:pw@host",
            "run",
            "x@y://z",
            "mypassword",
        ] {
            assert_eq!(shown_argument(kept), kept);
        }
    }

    #[test]
    fn a_libpq_connection_string_is_told_from_a_file_name() {
        for conninfo in [
            "host=127.0.0.1 port=55432 user=bench password=sekrit123 dbname=fleet",
            "dbname=fleet",
            "  user = ci host=/tmp",
            "results.db password=x",
        ] {
            assert!(is_conninfo(conninfo), "{conninfo}");
        }
        for file in [
            "results.db",
            "./host=a.db",
            "runs/user=ci.db",
            "my host.db",
            "hostname=x",
        ] {
            assert!(!is_conninfo(file), "{file}");
        }
    }
}
