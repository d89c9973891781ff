//! The fleet examples (examples/fleet): a GitHub Actions workflow, a Slurm array job and a
//! Kubernetes Indexed Job. Their structure is checked, and every `cryptobench` command
//! line in them is checked against the binary's own `--help`, so that an example naming a
//! subcommand or an option that does not exist fails here rather than on someone's fleet.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value;

const WORKFLOW: &str = "examples/fleet/github-actions.yml";
const SBATCH: &str = "examples/fleet/slurm-array.sbatch";
const K8S_JOB: &str = "examples/fleet/k8s-indexed-job.yaml";

fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Just enough of the shell to find the `cryptobench` command lines of a script, and
/// their words, as bash would split them: comments dropped, `\` continuations joined,
/// quotes removed, redirections and their targets left out, commands split at `;`, `&&`,
/// `||`, `|`, `&`, parentheses and newlines. Expansions (`$VAR`, `${VAR}`, `$(...)`, and
/// GitHub's `${{ ... }}`) are kept as written, as opaque parts of their word; the scripts
/// inside `$(...)`, backquotes and quoted strings are searched too. A word `"${NAME[@]}"`
/// stands for every word ever put in the array NAME (`NAME=(...)` or `NAME+=(...)`), so
/// that options collected in a loop are checked like the others.
mod shell {
    use std::collections::HashMap;

    /// One word: quotes removed, expansions as written.
    #[derive(Debug, Clone, PartialEq)]
    struct Word {
        text: String,
        /// Line of the script (from 0) the word starts on.
        line: usize,
        /// Scripts inside it ($(...), backquotes, quoted strings), with the line each starts on.
        nested: Vec<(String, usize)>,
    }

    #[derive(Debug)]
    enum Tok {
        Word(Word),
        /// Ends a simple command.
        Sep,
        /// `>`, `>>`, `2>&1`, `<`...: the next word is its target.
        Redirect,
        /// `NAME=(...)` or `NAME+=(...)`.
        Array(String, Vec<Word>),
    }

    /// A `cryptobench` command line: the line (from 0) its `cryptobench` is on, and the
    /// words after it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Invocation {
        pub line: usize,
        pub args: Vec<String>,
    }

    /// Every `cryptobench` command line of `script`, in order of lines.
    pub fn invocations(script: &str) -> Result<Vec<Invocation>, String> {
        let mut out = invocations_at(script, 0)?;
        out.sort_by_key(|i| i.line);
        Ok(out)
    }

    /// The `cryptobench` command lines of a command given as a list of words, with no
    /// shell (a Kubernetes container's `command` and `args`): the command itself, and
    /// those of any word that is a script (`sh -c SCRIPT`).
    pub fn invocations_in_argv(argv: &[String]) -> Result<Vec<Invocation>, String> {
        let mut out = Vec::new();
        if argv.first().is_some_and(|a| is_cryptobench(a)) && argv.len() > 1 {
            out.push(Invocation {
                line: 0,
                args: argv[1..].to_vec(),
            });
        }
        for a in argv {
            if a.contains(char::is_whitespace) {
                out.extend(invocations(a)?);
            }
        }
        Ok(out)
    }

    fn invocations_at(script: &str, line0: usize) -> Result<Vec<Invocation>, String> {
        let mut toks = lex(script, line0)?;
        toks.push(Tok::Sep);
        let mut arrays: HashMap<&str, Vec<&Word>> = HashMap::new();
        for t in &toks {
            if let Tok::Array(name, words) = t {
                arrays.entry(name).or_default().extend(words);
            }
        }
        let mut out = Vec::new();
        let mut command: Vec<&Word> = Vec::new();
        let mut redirect = false;
        for t in &toks {
            match t {
                Tok::Word(w) => {
                    for (script, line) in &w.nested {
                        out.extend(invocations_at(script, *line)?);
                    }
                    if !std::mem::take(&mut redirect) {
                        command.push(w);
                    }
                }
                Tok::Array(_, words) => {
                    for w in words {
                        for (script, line) in &w.nested {
                            out.extend(invocations_at(script, *line)?);
                        }
                    }
                }
                Tok::Redirect => redirect = true,
                Tok::Sep => {
                    out.extend(invocation(&command, &arrays));
                    command.clear();
                    redirect = false;
                }
            }
        }
        Ok(out)
    }

    /// The `cryptobench` command in one simple command, wherever it stands in it (after
    /// `srun --exclusive`, `taskset -c 2`, `VAR=value`...), unless it is the value of an
    /// option (`cargo build --bin cryptobench`) or has no words after it
    /// (`command -v cryptobench`).
    fn invocation(command: &[&Word], arrays: &HashMap<&str, Vec<&Word>>) -> Option<Invocation> {
        const TAKES_A_NAME: &[&str] = &["--bin", "-p", "--package", "--name", "--job-name"];
        let at = (0..command.len()).find(|&k| {
            is_cryptobench(&command[k].text)
                && (k == 0 || !TAKES_A_NAME.contains(&command[k - 1].text.as_str()))
        })?;
        let mut args = Vec::new();
        for w in &command[at + 1..] {
            match array_expansion(&w.text).and_then(|name| arrays.get(name)) {
                Some(words) => args.extend(words.iter().map(|w| w.text.clone())),
                None => args.push(w.text.clone()),
            }
        }
        (!args.is_empty()).then(|| Invocation {
            line: command[at].line,
            args,
        })
    }

    /// `cryptobench`, or a path to it; not an assignment of one.
    fn is_cryptobench(word: &str) -> bool {
        word == "cryptobench" || (word.ends_with("/cryptobench") && !word.contains('='))
    }

    /// NAME, for `${NAME[@]}` or `${NAME[*]}`.
    fn array_expansion(word: &str) -> Option<&str> {
        let inner = word.strip_prefix("${")?.strip_suffix('}')?;
        inner
            .strip_suffix("[@]")
            .or_else(|| inner.strip_suffix("[*]"))
            .filter(|name| is_name(name))
    }

    fn is_name(s: &str) -> bool {
        let mut cs = s.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// Splits `script` (whose first line is line `line0`) into words and separators.
    fn lex(script: &str, line0: usize) -> Result<Vec<Tok>, String> {
        let s: Vec<char> = script.chars().collect();
        let mut i = 0;
        let mut line = line0;
        let mut toks = Vec::new();
        let mut word: Option<Word> = None;
        fn start(word: &mut Option<Word>, line: usize) -> &mut Word {
            word.get_or_insert_with(|| Word {
                text: String::new(),
                line,
                nested: Vec::new(),
            })
        }
        fn end(word: &mut Option<Word>, toks: &mut Vec<Tok>) {
            if let Some(w) = word.take() {
                toks.push(Tok::Word(w));
            }
        }
        while i < s.len() {
            let c = s[i];
            match c {
                '\\' if s.get(i + 1) == Some(&'\n') => {
                    // A continuation: the next line goes on this command (and this word).
                    i += 2;
                    line += 1;
                }
                '\\' => {
                    let w = start(&mut word, line);
                    w.text.extend(s.get(i + 1));
                    i += 2;
                }
                ' ' | '\t' | '\r' => {
                    end(&mut word, &mut toks);
                    i += 1;
                }
                '\n' => {
                    end(&mut word, &mut toks);
                    toks.push(Tok::Sep);
                    line += 1;
                    i += 1;
                }
                '#' if word.is_none() => {
                    while i < s.len() && s[i] != '\n' {
                        i += 1;
                    }
                }
                '&' if s.get(i + 1) == Some(&'>') => {
                    end(&mut word, &mut toks);
                    i = redirection_end(&s, i + 1);
                    toks.push(Tok::Redirect);
                }
                ';' | '&' | '|' | ')' => {
                    end(&mut word, &mut toks);
                    toks.push(Tok::Sep);
                    i += 1;
                }
                '(' => {
                    let lhs = word.as_ref().map(|w| w.text.clone()).unwrap_or_default();
                    let name = lhs.strip_suffix("+=").or_else(|| lhs.strip_suffix('='));
                    match name.filter(|n| is_name(n) && word.as_ref().unwrap().nested.is_empty()) {
                        Some(name) => {
                            let close = closing(&s, i + 1, '(', ')', line)?;
                            let inner: String = s[i + 1..close].iter().collect();
                            let words = lex(&inner, line)?
                                .into_iter()
                                .filter_map(|t| match t {
                                    Tok::Word(w) => Some(w),
                                    _ => None,
                                })
                                .collect();
                            toks.push(Tok::Array(name.to_string(), words));
                            word = None;
                            line += inner.matches('\n').count();
                            i = close + 1;
                        }
                        None => {
                            end(&mut word, &mut toks);
                            toks.push(Tok::Sep);
                            i += 1;
                        }
                    }
                }
                '<' | '>' => {
                    // `2>`: the digits before are the redirected descriptor, not a word.
                    if word.as_ref().is_some_and(|w| {
                        w.nested.is_empty() && w.text.chars().all(|c| c.is_ascii_digit())
                    }) {
                        word = None;
                    }
                    end(&mut word, &mut toks);
                    if c == '<' && s.get(i + 1) == Some(&'<') && s.get(i + 2) != Some(&'<') {
                        return Err(format!(
                            "line {}: here-documents are not understood by this test",
                            line + 1
                        ));
                    }
                    i = redirection_end(&s, i);
                    toks.push(Tok::Redirect);
                }
                '\'' => {
                    let from = line;
                    let close = (i + 1..s.len())
                        .find(|&k| s[k] == '\'')
                        .ok_or_else(|| format!("line {}: unterminated '", from + 1))?;
                    let content: String = s[i + 1..close].iter().collect();
                    line += content.matches('\n').count();
                    let w = start(&mut word, from);
                    w.text.push_str(&content);
                    w.nested.push((content, from));
                    i = close + 1;
                }
                '"' => {
                    let from = line;
                    let w = start(&mut word, from);
                    let mut k = i + 1;
                    loop {
                        match s.get(k) {
                            None => return Err(format!("line {}: unterminated \"", from + 1)),
                            Some('"') => break,
                            Some('\\') => {
                                match s.get(k + 1) {
                                    Some('\n') => line += 1,
                                    Some(&e @ ('"' | '\\' | '$' | '`')) => w.text.push(e),
                                    _ => {
                                        w.text.push('\\');
                                        k -= 1;
                                    }
                                }
                                k += 2;
                            }
                            Some('$') => {
                                let (end, _) = dollar(&s, k, line)?;
                                let text: String = s[k..end].iter().collect();
                                line += text.matches('\n').count();
                                w.text.push_str(&text);
                                k = end;
                            }
                            Some('`') => {
                                let close = (k + 1..s.len())
                                    .find(|&j| s[j] == '`')
                                    .ok_or_else(|| format!("line {}: unterminated `", line + 1))?;
                                let text: String = s[k..=close].iter().collect();
                                line += text.matches('\n').count();
                                w.text.push_str(&text);
                                k = close + 1;
                            }
                            Some(&ch) => {
                                if ch == '\n' {
                                    line += 1;
                                }
                                w.text.push(ch);
                                k += 1;
                            }
                        }
                    }
                    // The quoted text, searched as a script: `--wrap "cryptobench ..."`,
                    // `sh -c "..."`, and the `$(...)` inside it.
                    w.nested.push((s[i + 1..k].iter().collect(), from));
                    i = k + 1;
                }
                '$' => {
                    let from = line;
                    let (end, inner) = dollar(&s, i, line)?;
                    let text: String = s[i..end].iter().collect();
                    line += text.matches('\n').count();
                    let w = start(&mut word, from);
                    w.text.push_str(&text);
                    w.nested.extend(inner.map(|inner| (inner, from)));
                    i = end;
                }
                '`' => {
                    let from = line;
                    let close = (i + 1..s.len())
                        .find(|&k| s[k] == '`')
                        .ok_or_else(|| format!("line {}: unterminated `", from + 1))?;
                    let inner: String = s[i + 1..close].iter().collect();
                    line += inner.matches('\n').count();
                    let w = start(&mut word, from);
                    w.text.push('`');
                    w.text.push_str(&inner);
                    w.text.push('`');
                    w.nested.push((inner, from));
                    i = close + 1;
                }
                _ => {
                    start(&mut word, line).text.push(c);
                    i += 1;
                }
            }
        }
        end(&mut word, &mut toks);
        Ok(toks)
    }

    /// Past a redirection operator starting at `i` (`>`, `>>`, `>&`, `<`, `>|`...).
    fn redirection_end(s: &[char], mut i: usize) -> usize {
        while i < s.len() && matches!(s[i], '<' | '>' | '&' | '|') {
            i += 1;
        }
        i
    }

    /// The expansion starting with the `$` at `i`: where it ends, and the script inside
    /// it for a command substitution.
    fn dollar(s: &[char], i: usize, line: usize) -> Result<(usize, Option<String>), String> {
        match (s.get(i + 1), s.get(i + 2)) {
            // GitHub's `${{ expression }}`, replaced before any shell sees the script.
            (Some('{'), Some('{')) => {
                let close = (i + 3..s.len().saturating_sub(1))
                    .find(|&k| s[k] == '}' && s[k + 1] == '}')
                    .ok_or_else(|| format!("line {}: unterminated ${{{{", line + 1))?;
                Ok((close + 2, None))
            }
            (Some('{'), _) => Ok((closing(s, i + 2, '{', '}', line)? + 1, None)),
            (Some('('), _) => {
                let close = closing(s, i + 2, '(', ')', line)?;
                Ok((close + 1, Some(s[i + 2..close].iter().collect())))
            }
            (Some(c), _) if c.is_ascii_alphabetic() || *c == '_' => {
                let end = (i + 1..s.len())
                    .find(|&k| !(s[k].is_ascii_alphanumeric() || s[k] == '_'))
                    .unwrap_or(s.len());
                Ok((end, None))
            }
            (Some(c), _) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => Ok((i + 2, None)),
            _ => Ok((i + 1, None)),
        }
    }

    /// The `close` that ends the group whose contents start at `i`, skipping quoted text.
    fn closing(
        s: &[char],
        mut i: usize,
        open: char,
        close: char,
        line: usize,
    ) -> Result<usize, String> {
        let mut depth = 0;
        let mut quote: Option<char> = None;
        while i < s.len() {
            let c = s[i];
            match quote {
                Some(q) if c == q => quote = None,
                Some('"') if c == '\\' => i += 1,
                Some(_) => {}
                None if c == '\\' => i += 1,
                None if c == '\'' || c == '"' => quote = Some(c),
                None if c == open => depth += 1,
                None if c == close && depth == 0 => return Ok(i),
                None if c == close => depth -= 1,
                None => {}
            }
            i += 1;
        }
        Err(format!(
            "line {}: no `{close}` closes this `{open}`",
            line + 1
        ))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn one(script: &str) -> Invocation {
            let found = invocations(script).expect("lexes");
            assert_eq!(found.len(), 1, "{script:?}: {found:?}");
            found.into_iter().next().unwrap()
        }

        fn args(script: &str) -> Vec<String> {
            one(script).args
        }

        #[test]
        fn continuations_join_lines() {
            let i = one(
                "echo start\n./target/release/cryptobench run x \\\n  --db a.db \\\n  --format md\necho done\n",
            );
            assert_eq!(i.line, 1);
            assert_eq!(i.args, ["run", "x", "--db", "a.db", "--format", "md"]);
        }

        #[test]
        fn quotes_are_removed_and_quoted_words_stay_whole() {
            assert_eq!(
                args(r#"cryptobench run "--db" 'a b.db' --testbed "x"y --format\ md"#),
                ["run", "--db", "a b.db", "--testbed", "xy", "--format md"]
            );
        }

        #[test]
        fn redirections_and_their_targets_are_not_arguments() {
            assert_eq!(
                args(r#"cryptobench report --format md >> "$GITHUB_STEP_SUMMARY" 2>&1 </dev/null"#),
                ["report", "--format", "md"]
            );
            assert_eq!(
                args("cryptobench report --format md>out.md &>log"),
                ["report", "--format", "md"]
            );
        }

        #[test]
        fn comments_are_ignored() {
            assert_eq!(
                invocations("# cryptobench run --nope\n  # cryptobench push --nope\n").unwrap(),
                []
            );
            assert_eq!(args("cryptobench run x # --nope\n"), ["run", "x"]);
            // `#` inside a word or quotes is no comment.
            assert_eq!(
                args("cryptobench run a#b '# c' ${#x}"),
                ["run", "a#b", "# c", "${#x}"]
            );
        }

        #[test]
        fn expansions_are_opaque_words() {
            assert_eq!(
                args(
                    "cryptobench run --testbed ${{ matrix.testbed }} --db \"results-${{ matrix.testbed }}.db\" --x=$HOME/$(date +%F).db ${A:-b c}"
                ),
                [
                    "run",
                    "--testbed",
                    "${{ matrix.testbed }}",
                    "--db",
                    "results-${{ matrix.testbed }}.db",
                    "--x=$HOME/$(date +%F).db",
                    "${A:-b c}"
                ]
            );
        }

        #[test]
        fn commands_are_split_at_operators() {
            let found = invocations(
                "cargo build --release && ./target/release/cryptobench machines --db x; echo done\n\
                 cryptobench push --to a || (cryptobench push --to b) | tee log &",
            )
            .unwrap();
            let args: Vec<_> = found.iter().map(|i| i.args.join(" ")).collect();
            assert_eq!(args, ["machines --db x", "push --to a", "push --to b"]);
            assert_eq!(found.iter().map(|i| i.line).collect::<Vec<_>>(), [0, 1, 1]);
        }

        #[test]
        fn arrays_built_in_a_loop_are_expanded() {
            let script = "from=()\nfor db in results/*.db; do\n  from+=(--from \"$db\")\ndone\n\
                          tb=(--testbed zen4)\ncryptobench push --to m.db \"${from[@]}\" \"${tb[@]}\" \"${unknown[@]}\"\n";
            let i = one(script);
            assert_eq!(i.line, 5);
            assert_eq!(
                i.args,
                [
                    "push",
                    "--to",
                    "m.db",
                    "--from",
                    "$db",
                    "--testbed",
                    "zen4",
                    "${unknown[@]}"
                ]
            );
        }

        #[test]
        fn commands_inside_substitutions_and_strings_are_found() {
            let found = invocations(
                "sbatch --wrap \"cryptobench push --to x\"\necho \"$(cryptobench machines --db y)\"\nn=`cryptobench list`\nsh -c 'cryptobench info --format json'",
            )
            .unwrap();
            let args: Vec<_> = found.iter().map(|i| (i.line, i.args.join(" "))).collect();
            assert_eq!(
                args,
                [
                    (0, "push --to x".to_string()),
                    (1, "machines --db y".to_string()),
                    (2, "list".to_string()),
                    (3, "info --format json".to_string())
                ]
            );
        }

        #[test]
        fn mentions_that_are_not_commands_are_skipped() {
            let script = "cargo build --release --bin cryptobench\ncargo install -p cryptobench --locked\n\
                          BIN=./target/release/cryptobench\ncommand -v cryptobench\n\
                          echo \"cryptobench: done\"\nls cryptobench-results/\n";
            assert_eq!(invocations(script).unwrap(), []);
        }

        #[test]
        fn wrappers_before_the_command_are_skipped() {
            assert_eq!(
                args("CRYPTOBENCH_DB=x.db srun --exclusive taskset -c 2 cryptobench run y"),
                ["run", "y"]
            );
        }

        #[test]
        fn argv_without_a_shell() {
            let argv: Vec<String> = [
                "cryptobench",
                "run",
                "--db",
                "/r/run-$(JOB_COMPLETION_INDEX).db",
            ]
            .map(String::from)
            .to_vec();
            assert_eq!(
                invocations_in_argv(&argv).unwrap(),
                [Invocation {
                    line: 0,
                    args: argv[1..].to_vec()
                }]
            );
            let sh: Vec<String> = ["sh", "-c", "set -e\ncryptobench push --to x"]
                .map(String::from)
                .to_vec();
            assert_eq!(
                invocations_in_argv(&sh).unwrap(),
                [Invocation {
                    line: 1,
                    args: vec!["push".into(), "--to".into(), "x".into()]
                }]
            );
        }

        #[test]
        fn what_it_does_not_understand_is_an_error() {
            assert!(
                invocations("cat <<EOF\ncryptobench run\nEOF\n")
                    .unwrap_err()
                    .contains("here-documents")
            );
            assert!(invocations("echo \"open").is_err());
            assert!(invocations("echo $(open").is_err());
        }
    }
}

/// What `cryptobench ... --help` says, asked once per subcommand.
struct Help<F: FnMut(&[String]) -> String> {
    ask: F,
    seen: HashMap<Vec<String>, String>,
}

impl<F: FnMut(&[String]) -> String> Help<F> {
    fn new(ask: F) -> Self {
        Help {
            ask,
            seen: HashMap::new(),
        }
    }

    fn of(&mut self, path: &[String]) -> &str {
        if !self.seen.contains_key(path) {
            let text = (self.ask)(path);
            self.seen.insert(path.to_vec(), text);
        }
        &self.seen[path]
    }

    /// What is wrong with `cryptobench ARGS`: a subcommand that is not one, an option its
    /// subcommand's help does not list. Empty when nothing is.
    fn problems(&mut self, args: &[String]) -> Vec<String> {
        let mut path: Vec<String> = Vec::new();
        let mut problems = Vec::new();
        let mut positional = false;
        let mut options_ended = false;
        let name = |path: &[String]| {
            std::iter::once("cryptobench")
                .chain(path.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for a in args {
            let help = self.of(&path);
            if !options_ended && a == "--" {
                options_ended = true;
            } else if !options_ended && a.starts_with("--") {
                let option = a.split('=').next().unwrap();
                if !options(help).iter().any(|o| o == option) {
                    problems.push(format!("`{}` has no option `{option}`", name(&path)));
                }
            } else if !options_ended
                && a.len() > 1
                && a.starts_with('-')
                && a[1..].starts_with(|c: char| c.is_ascii_alphabetic())
            {
                let option = &a[..2];
                if !options(help).iter().any(|o| o == option) {
                    problems.push(format!("`{}` has no option `{option}`", name(&path)));
                }
            } else if !positional {
                let commands = subcommands(help);
                if commands.iter().any(|c| c == a) {
                    path.push(a.clone());
                    continue;
                }
                if !commands.is_empty() && !help.contains("\nArguments:") {
                    problems.push(format!(
                        "`{}` has no subcommand `{a}` (it has: {})",
                        name(&path),
                        commands.join(", ")
                    ));
                    break;
                }
                positional = true;
            }
        }
        // An option from an array filled in several branches is checked once.
        problems.dedup();
        problems
    }
}

/// The subcommands a clap help lists under `Commands:`.
fn subcommands(help: &str) -> Vec<String> {
    section(help, "Commands:")
        .filter(|l| l.starts_with("  ") && !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect()
}

/// The options (`-o`, `--output`) a clap help lists under `Options:`.
fn options(help: &str) -> Vec<String> {
    section(help, "Options:")
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .flat_map(|l| {
            l.split([' ', ','])
                .filter(|w| !w.is_empty())
                .take_while(|w| w.starts_with('-'))
                .map(|w| w.split('=').next().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The lines of a help's section, from its heading to the next heading.
fn section<'a>(help: &'a str, heading: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    help.lines()
        .skip_while(move |l| l.trim_end() != heading)
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
}

fn binary_help(path: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cryptobench"))
        .args(path)
        .arg("--help")
        .env_remove("CRYPTOBENCH_DB")
        .output()
        .expect("run cryptobench");
    assert!(
        out.status.success(),
        "cryptobench {} --help failed: {}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// A `cryptobench` command line of an example: where it is, and its words.
#[derive(Debug)]
struct Found {
    /// `file:line`, the line counted from 1.
    at: String,
    /// The GitHub job it is in, for the workflow.
    job: Option<String>,
    args: Vec<String>,
}

/// The first line (from 0) at or after `from` that contains `needle`.
fn locate(text: &str, needle: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from)
        .find(|(_, l)| l.contains(needle))
        .map(|(n, _)| n)
}

fn yaml(rel: &str) -> Vec<Value> {
    use serde::Deserialize;
    serde_yaml_ng::Deserializer::from_str(&read(rel))
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{rel}: not YAML: {e}")))
        .collect()
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The `cryptobench` command lines of the workflow's `run:` steps.
fn workflow_commands() -> Vec<Found> {
    let raw = read(WORKFLOW);
    let docs = yaml(WORKFLOW);
    let jobs = docs[0]["jobs"]
        .as_mapping()
        .unwrap_or_else(|| panic!("{WORKFLOW}: no `jobs`"));
    let mut found = Vec::new();
    let mut cursor = 0;
    for (name, job) in jobs {
        let name = name.as_str().expect("job names are strings");
        for step in job["steps"].as_sequence().into_iter().flatten() {
            let Some(script) = str_of(step, "run") else {
                continue;
            };
            // Where the script is in the file: the line of its first line.
            let (first, text) = script
                .lines()
                .enumerate()
                .find(|(_, l)| !l.trim().is_empty())
                .unwrap_or_else(|| panic!("{WORKFLOW}: job `{name}` has an empty `run:`"));
            let at = locate(&raw, text.trim(), cursor)
                .unwrap_or_else(|| panic!("{WORKFLOW}: cannot find `{}` in the file", text.trim()));
            cursor = at + 1;
            let invocations = shell::invocations(script)
                .unwrap_or_else(|e| panic!("{WORKFLOW}:{}: {e}", at + 1 - first));
            found.extend(invocations.into_iter().map(|i| Found {
                at: format!("{WORKFLOW}:{}", at - first + i.line + 1),
                job: Some(name.to_string()),
                args: i.args,
            }));
        }
    }
    found
}

fn sbatch_commands() -> Vec<Found> {
    shell::invocations(&read(SBATCH))
        .unwrap_or_else(|e| panic!("{SBATCH}: {e}"))
        .into_iter()
        .map(|i| Found {
            at: format!("{SBATCH}:{}", i.line + 1),
            job: None,
            args: i.args,
        })
        .collect()
}

/// Every container (and init container) of the Jobs in the file.
fn k8s_containers(docs: &[Value]) -> Vec<&Value> {
    docs.iter()
        .filter(|d| str_of(d, "kind") == Some("Job"))
        .flat_map(|d| {
            let pod = &d["spec"]["template"]["spec"];
            ["containers", "initContainers"]
                .into_iter()
                .flat_map(move |k| pod[k].as_sequence().into_iter().flatten())
        })
        .collect()
}

/// The `cryptobench` command lines of the Jobs' containers.
fn k8s_commands() -> Vec<Found> {
    let raw = read(K8S_JOB);
    let docs = yaml(K8S_JOB);
    let mut found = Vec::new();
    let mut cursor = 0;
    for c in k8s_containers(&docs) {
        let name = str_of(c, "name").unwrap_or_default();
        let strings = |k: &str| -> Vec<String> {
            c[k].as_sequence()
                .into_iter()
                .flatten()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => serde_yaml_ng::to_string(other).unwrap().trim().to_string(),
                })
                .collect()
        };
        let argv = [strings("command"), strings("args")].concat();
        let named = locate(&raw, &format!("- name: {name}"), cursor).unwrap_or(cursor);
        let at = locate(&raw, "command:", named)
            .or_else(|| locate(&raw, "args:", named))
            .unwrap_or(named);
        cursor = at + 1;
        let invocations = shell::invocations_in_argv(&argv)
            .unwrap_or_else(|e| panic!("{K8S_JOB}:{}: container `{name}`: {e}", at + 1));
        found.extend(invocations.into_iter().map(|i| Found {
            at: format!("{K8S_JOB}:{} (container `{name}`)", at + 1 + i.line),
            job: None,
            args: i.args,
        }));
    }
    found
}

fn subcommands_used(found: &[Found]) -> Vec<&str> {
    found.iter().map(|f| f.args[0].as_str()).collect()
}

#[test]
fn the_commands_of_every_example_are_found() {
    for (file, found, expected) in [
        (
            WORKFLOW,
            workflow_commands(),
            &["run", "push", "push", "machines", "report"][..],
        ),
        (
            SBATCH,
            sbatch_commands(),
            &["push", "machines", "report", "run"][..],
        ),
        (K8S_JOB, k8s_commands(), &["run"][..]),
    ] {
        assert_eq!(
            subcommands_used(&found),
            expected,
            "{file}: the cryptobench commands found, in order: {found:#?}"
        );
    }
}

/// The test that fails when an example names a subcommand or an option that the binary
/// does not have.
#[test]
fn every_example_command_uses_only_subcommands_and_options_that_exist() {
    let mut help = Help::new(binary_help);
    let mut problems = Vec::new();
    for f in [workflow_commands(), sbatch_commands(), k8s_commands()]
        .into_iter()
        .flatten()
    {
        for p in help.problems(&f.args) {
            problems.push(format!("{}: `cryptobench {}`: {p}", f.at, f.args.join(" ")));
        }
    }
    assert!(
        problems.is_empty(),
        "the fleet examples use what cryptobench does not have:\n  {}",
        problems.join("\n  ")
    );
}

/// The check above, on command lines whose verdict is known: it passes what exists and
/// fails what does not.
#[test]
fn the_check_passes_existing_options_and_fails_missing_ones() {
    let mut help = Help::new(binary_help);
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    for good in [
        "run chacha20-rng --db x.db --format md --processes 6 --save-baseline b --baseline b --fail-on-regression",
        "run --format=csv -o out.csv",
        "report latest --format md",
        "cache clean --older-than 30d",
        "import criterion target/criterion --db x.db",
        "--version",
    ] {
        assert_eq!(help.problems(&words(good)), Vec::<String>::new(), "{good}");
    }
    for (bad, says) in [
        (
            "run chacha20-rng --no-such-option 1",
            "`cryptobench run` has no option `--no-such-option`",
        ),
        (
            "report --format md --nope=1",
            "`cryptobench report` has no option `--nope`",
        ),
        (
            "no-such-subcommand --db x",
            "`cryptobench` has no subcommand `no-such-subcommand`",
        ),
        (
            "cache purge",
            "`cryptobench cache` has no subcommand `purge`",
        ),
        ("run -Z", "`cryptobench run` has no option `-Z`"),
    ] {
        let problems = help.problems(&words(bad));
        assert!(
            problems.iter().any(|p| p.contains(says)),
            "{bad}: {problems:?}"
        );
    }
}

#[test]
fn help_parsing() {
    let help = "Usage: x [OPTIONS] <COMMAND>\n\nCommands:\n  run     Measure\n          more text\n  report  Print\n\nOptions:\n  -o, --output <PATH>\n          Where\n      --format <FORMAT>  How [possible values: md, csv]\n  -h, --help  Help\n";
    assert_eq!(subcommands(help), ["run", "report"]);
    assert_eq!(
        options(help),
        ["-o", "--output", "--format", "-h", "--help"]
    );
}

#[test]
fn the_workflow_measures_in_a_matrix_and_reports_after_it() {
    let docs = yaml(WORKFLOW);
    let wf = &docs[0];
    assert!(wf.get("on").is_some(), "{WORKFLOW}: no `on:` trigger");
    let jobs = wf["jobs"]
        .as_mapping()
        .unwrap_or_else(|| panic!("{WORKFLOW}: no `jobs`"));
    let matrix: Vec<&str> = jobs
        .iter()
        .filter(|(_, j)| j["strategy"].get("matrix").is_some())
        .map(|(n, _)| n.as_str().unwrap())
        .collect();
    assert!(
        !matrix.is_empty(),
        "{WORKFLOW}: no job with a `strategy.matrix`"
    );
    let uses = |job: &Value, action: &str| {
        job["steps"]
            .as_sequence()
            .into_iter()
            .flatten()
            .any(|s| str_of(s, "uses") == Some(action))
    };
    let commands = workflow_commands();
    for name in &matrix {
        let job = &jobs[*name];
        let runs_on = serde_yaml_ng::to_string(&job["runs-on"]).unwrap();
        assert!(
            runs_on.contains("matrix."),
            "{WORKFLOW}: job `{name}` does not run on the matrix's runners: {runs_on}"
        );
        let entries = job["strategy"]["matrix"]["include"]
            .as_sequence()
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert!(
            entries.len() >= 2 && entries.iter().all(|e| e.get("testbed").is_some()),
            "{WORKFLOW}: job `{name}`'s matrix should include two machines or more, each with a `testbed`"
        );
        assert!(
            uses(job, "actions/upload-artifact@v4"),
            "{WORKFLOW}: job `{name}` uploads no artifact"
        );
        assert!(
            commands.iter().any(|f| f.job.as_deref() == Some(name)
                && f.args[0] == "run"
                && ["--db", "--testbed"]
                    .iter()
                    .all(|o| f.args.iter().any(|a| a == o))),
            "{WORKFLOW}: job `{name}` has no `cryptobench run --db ... --testbed ...`"
        );
    }
    let needs = |job: &Value| -> Vec<String> {
        match &job["needs"] {
            Value::String(s) => vec![s.clone()],
            Value::Sequence(s) => s
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            _ => vec![],
        }
    };
    let (report, job) = jobs
        .iter()
        .find(|(_, j)| needs(j).iter().any(|n| matrix.contains(&n.as_str())))
        .unwrap_or_else(|| panic!("{WORKFLOW}: no job `needs` the matrix job {matrix:?}"));
    let report = report.as_str().unwrap();
    assert!(
        uses(job, "actions/download-artifact@v4"),
        "{WORKFLOW}: job `{report}` downloads no artifact"
    );
    let in_report: Vec<&Found> = commands
        .iter()
        .filter(|f| f.job.as_deref() == Some(report))
        .collect();
    for (sub, option) in [("push", "--from"), ("report", "--machines")] {
        assert!(
            in_report
                .iter()
                .any(|f| f.args[0] == sub && f.args.iter().any(|a| a == option)),
            "{WORKFLOW}: job `{report}` has no `cryptobench {sub} ... {option}`: {in_report:#?}"
        );
    }
    // A push to the shared server from a matrix job: that server is another machine,
    // whose certificate is verified, against an authority a private one needs given.
    for name in &matrix {
        for step in jobs[*name]["steps"].as_sequence().into_iter().flatten() {
            let run = str_of(step, "run").unwrap_or_default();
            if !run.contains("cryptobench push") {
                continue;
            }
            assert!(
                run.contains("PGSSLROOTCERT="),
                "{WORKFLOW}: job `{name}` pushes to the server without a way to give PGSSLROOTCERT: a server whose certificate a private authority signed cannot be verified"
            );
            let root = step["env"]
                .as_mapping()
                .into_iter()
                .flatten()
                .find(|(k, _)| run.contains(&format!("${}", k.as_str().unwrap_or("-"))))
                .and_then(|(_, v)| v.as_str());
            assert!(
                root.is_some_and(|v| v.contains("secrets.")),
                "{WORKFLOW}: job `{name}`: the root certificate should come from a secret"
            );
        }
    }
    let summary = job["steps"]
        .as_sequence()
        .into_iter()
        .flatten()
        .filter_map(|s| str_of(s, "run"))
        .any(|r| r.contains("cryptobench report") && r.contains("GITHUB_STEP_SUMMARY"));
    assert!(
        summary,
        "{WORKFLOW}: job `{report}` does not write the report to $GITHUB_STEP_SUMMARY"
    );
}

#[test]
fn the_kubernetes_job_is_indexed_and_guaranteed_whole_cpus() {
    let docs = yaml(K8S_JOB);
    let jobs: Vec<&Value> = docs
        .iter()
        .filter(|d| str_of(d, "kind") == Some("Job"))
        .collect();
    assert_eq!(jobs.len(), 1, "{K8S_JOB}: one Job expected");
    let job = jobs[0];
    assert_eq!(
        str_of(job, "apiVersion"),
        Some("batch/v1"),
        "{K8S_JOB}: apiVersion"
    );
    let spec = &job["spec"];
    assert_eq!(
        str_of(spec, "completionMode"),
        Some("Indexed"),
        "{K8S_JOB}: spec.completionMode"
    );
    let completions = spec["completions"].as_u64();
    assert!(
        completions.is_some_and(|c| c > 1),
        "{K8S_JOB}: spec.completions should be 2 or more"
    );
    assert_eq!(
        spec["parallelism"].as_u64(),
        completions,
        "{K8S_JOB}: spec.parallelism should equal spec.completions"
    );
    let pod = &spec["template"]["spec"];
    let restart = str_of(pod, "restartPolicy");
    assert!(
        matches!(restart, Some("Never" | "OnFailure")),
        "{K8S_JOB}: a Job's restartPolicy must be Never or OnFailure, not {restart:?}"
    );
    let placement = serde_yaml_ng::to_string(&pod["nodeSelector"]).unwrap()
        + &serde_yaml_ng::to_string(&pod["affinity"]["nodeAffinity"]).unwrap();
    assert!(
        placement.contains("feature.node.kubernetes.io/"),
        "{K8S_JOB}: nodes are not chosen by node-feature-discovery's CPU labels"
    );
    let containers = k8s_containers(&docs);
    assert!(!containers.is_empty(), "{K8S_JOB}: no containers");
    for c in containers {
        let name = str_of(c, "name").unwrap_or_default();
        let resources = &c["resources"];
        // Guaranteed QoS: requests equal limits, for CPU and memory, in every container.
        for kind in ["cpu", "memory"] {
            let request = &resources["requests"][kind];
            assert!(
                !request.is_null(),
                "{K8S_JOB}: container `{name}` requests no {kind}"
            );
            assert_eq!(
                request, &resources["limits"][kind],
                "{K8S_JOB}: container `{name}`: {kind} requests and limits differ, so the pod is not of Guaranteed QoS"
            );
        }
        // Whole CPUs, which the static CPU manager can give it to itself.
        let cpu = match &resources["requests"]["cpu"] {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            other => panic!("{K8S_JOB}: container `{name}`: cpu {other:?}"),
        };
        assert!(
            cpu.parse::<u32>().is_ok_and(|n| n > 0),
            "{K8S_JOB}: container `{name}`: cpu `{cpu}` is not a whole number of CPUs"
        );
        let env = c["env"]
            .as_sequence()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let password = env.iter().find(|e| str_of(e, "name") == Some("PGPASSWORD"));
        assert!(
            password.is_some_and(|e| !e["valueFrom"]["secretKeyRef"].is_null()),
            "{K8S_JOB}: container `{name}`: PGPASSWORD should come from a Secret (valueFrom.secretKeyRef)"
        );
        // The server is in the cluster, not on the pod's machine: cryptobench verifies
        // its certificate, against an authority the pod must be given (no public one
        // signs a .svc name), mounted where PGSSLROOTCERT says.
        let root = env
            .iter()
            .find(|e| str_of(e, "name") == Some("PGSSLROOTCERT"))
            .and_then(|e| str_of(e, "value"))
            .unwrap_or_else(|| panic!("{K8S_JOB}: container `{name}` gives no PGSSLROOTCERT: its TLS connection to a server in the cluster cannot be verified"));
        let mounts = c["volumeMounts"]
            .as_sequence()
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert!(
            mounts.iter().any(
                |m| str_of(m, "mountPath")
                    .is_some_and(|dir| std::path::Path::new(root).parent()
                        == Some(std::path::Path::new(dir)))
            ),
            "{K8S_JOB}: container `{name}`: nothing is mounted where PGSSLROOTCERT ({root}) lies"
        );
    }
    let commands = k8s_commands();
    assert!(
        commands.iter().any(
            |f| f.args.iter().any(|a| a.contains("$(JOB_COMPLETION_INDEX)"))
                && f.args.iter().any(|a| a == "--push-to")
        ),
        "{K8S_JOB}: no `cryptobench run` that names its file by $(JOB_COMPLETION_INDEX) and pushes it: {commands:#?}"
    );
}

#[test]
fn the_slurm_script_is_bash_and_its_directives_are_read() {
    let out = Command::new("bash")
        .arg("-n")
        .arg(path(SBATCH))
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "bash -n {SBATCH}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // sbatch reads #SBATCH lines only up to the first command: a directive after it is
    // silently a comment.
    let text = read(SBATCH);
    let first_command = text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or(usize::MAX);
    let mut directives = Vec::new();
    for (n, l) in text.lines().enumerate() {
        if let Some(d) = l.strip_prefix("#SBATCH") {
            assert!(
                n < first_command,
                "{SBATCH}:{}: #SBATCH after the first command is ignored by sbatch",
                n + 1
            );
            directives.push(d.trim().to_string());
        }
    }
    for wanted in [
        "--array=",
        "--exclusive",
        "--constraint=",
        "--cpus-per-task=",
        "--time=",
    ] {
        assert!(
            directives.iter().any(|d| d.starts_with(wanted)),
            "{SBATCH}: no #SBATCH {wanted}: {directives:?}"
        );
    }
}
