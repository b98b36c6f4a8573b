//! What in a command line may destroy data or run other code: destructive programs in command
//! position, `git reset/clean`, `chmod -R`, an overwriting `>`, variables such as `LD_PRELOAD`,
//! looking into `sh -c` scripts. Pure: the permission card and `prompt` flag these.

/// Programs that destroy or overwrite data whatever their arguments.
const DESTRUCTIVE: &[&str] = &["rm", "rmdir", "mv", "dd", "truncate", "shred", "mkfs", "wipefs", "srm", "unlink"];
/// Programs that run the rest of their arguments as a command.
const WRAPPERS: &[&str] =
    &["sudo", "doas", "env", "nohup", "time", "nice", "command", "exec", "xargs", "timeout", "stdbuf"];
/// Shells whose `-c` argument is itself a command line.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish"];

/// What in `command` may destroy data: destructive programs in command position (`rm`, `mv`,
/// `dd`, `truncate`, …), `git reset`, `git clean`, `chmod -R`, and an overwriting `>`. Words
/// inside quoted arguments do not count; a `sh -c '…'` script is looked into.
pub fn dangers(command: &str) -> Vec<String> {
    let mut found = Vec::new();
    for simple in split_commands(command) {
        if simple.overwrites {
            push_unique(&mut found, ">");
        }
        simple_dangers(&simple.words, &mut found);
    }
    found
}

fn push_unique(found: &mut Vec<String>, what: &str) {
    if !found.iter().any(|f| f == what) {
        found.push(what.to_string());
    }
}

/// Variables that make a program run code other than its own (a library loaded first, a script
/// sourced by the shell, options given to an interpreter): flagged when a command sets them.
const DANGEROUS_ENV: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PATH",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PERL5OPT",
    "RUBYOPT",
];

fn dangerous_env(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    (DANGEROUS_ENV.contains(&name) || name.starts_with("DYLD_")).then_some(name)
}

fn simple_dangers(words: &[String], found: &mut Vec<String>) {
    for word in words.iter().take_while(|w| is_assignment(w)) {
        if let Some(name) = dangerous_env(word) {
            push_unique(found, name);
        }
    }
    let mut i = 0;
    // Skip assignments and wrappers (with their options) to the program in command position.
    while i < words.len() {
        let w = &words[i];
        let name = basename(w);
        if is_assignment(w) {
            i += 1;
        } else if WRAPPERS.contains(&name) {
            i += 1;
            while i < words.len() && (words[i].starts_with('-') || is_assignment(&words[i])) {
                i += 1;
            }
            // `timeout 5 cmd`: a duration argument.
            if name == "timeout" && i < words.len() && words[i].chars().next().is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        } else {
            break;
        }
    }
    let Some(program) = words.get(i) else { return };
    let name = basename(program);
    let args = &words[i + 1..];
    if DESTRUCTIVE.contains(&name) || name.starts_with("mkfs.") {
        push_unique(found, name);
    } else if name == "git" {
        let sub = git_subcommand(args);
        if let Some(sub @ ("reset" | "clean")) = sub.as_deref() {
            push_unique(found, &format!("git {sub}"));
        }
    } else if name == "chmod" || name == "chown" {
        if args.iter().any(|a| a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('R'))) {
            push_unique(found, &format!("{name} -R"));
        }
    } else if SHELLS.contains(&name)
        && let Some(pos) =
            args.iter().position(|a| a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c')))
        && let Some(script) = args.get(pos + 1)
    {
        for d in dangers(script) {
            push_unique(found, &d);
        }
    }
}

fn git_subcommand(args: &[String]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return Some(a.clone());
        }
    }
    None
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        None => false,
    }
}

/// One simple command: its words (quotes removed) and whether it redirects `>` over a file.
struct Simple {
    words: Vec<String>,
    overwrites: bool,
}

/// Splits a command line at `;`, `&&`, `||`, `|`, `&`, newlines, `(`/`)` and `$(`/backticks,
/// honouring quotes and backslashes. Redirections are noted, not kept as words.
fn split_commands(line: &str) -> Vec<Simple> {
    let chars: Vec<char> = line.chars().collect();
    let mut s = Splitter::default();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                s.in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    s.word.push(chars[i]);
                    i += 1;
                }
            }
            '"' => {
                s.in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    }
                    s.word.push(chars[i]);
                    i += 1;
                }
            }
            '\\' => {
                s.in_word = true;
                if i + 1 < chars.len() {
                    i += 1;
                    s.word.push(chars[i]);
                }
            }
            ' ' | '\t' => s.end_word(),
            '>' => i += s.redirect_out(chars.get(i + 1).copied()),
            '<' => {
                s.end_word();
                s.redirect = Some(false);
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => s.end_command(),
            '$' if chars.get(i + 1) == Some(&'(') => {
                s.end_command();
                i += 1;
            }
            _ => {
                s.in_word = true;
                s.word.push(c);
            }
        }
        i += 1;
    }
    s.end_command();
    s.out
}

/// What `split_commands` holds as it reads: the commands made, the words of the one being read,
/// the word being read, and whether the next word is a redirection's target.
#[derive(Default)]
struct Splitter {
    out: Vec<Simple>,
    words: Vec<String>,
    word: String,
    in_word: bool,
    overwrites: bool,
    /// Some(overwriting) while the next word is a redirect target.
    redirect: Option<bool>,
}

impl Splitter {
    /// The word read ends: it is a word of the command, or the target of a redirection.
    fn end_word(&mut self) {
        if self.in_word {
            match self.redirect.take() {
                Some(over) => {
                    if over && self.word != "/dev/null" {
                        self.overwrites = true;
                    }
                }
                None => self.words.push(std::mem::take(&mut self.word)),
            }
            self.word.clear();
            self.in_word = false;
        }
    }

    /// The command read ends (at `;`, `&&`, `|`, a newline, a parenthesis, `$(`, a backtick).
    fn end_command(&mut self) {
        self.end_word();
        if !self.words.is_empty() || self.overwrites {
            self.out.push(Simple { words: std::mem::take(&mut self.words), overwrites: self.overwrites });
        }
        self.overwrites = false;
    }

    /// A `>` (followed by `next`): the redirection it starts; returns how many characters after
    /// it belong to it.
    fn redirect_out(&mut self, next: Option<char>) -> usize {
        // A file-descriptor number just before (`2>`) belongs to the redirection.
        if self.in_word && self.word.chars().all(|c| c.is_ascii_digit()) {
            self.word.clear();
            self.in_word = false;
        } else {
            self.end_word();
        }
        match next {
            // `>>` appends; `>&2` duplicates a descriptor, writes no file.
            Some('>') | Some('&') => {
                self.redirect = Some(false);
                1
            }
            Some('|') => {
                self.redirect = Some(true);
                1
            }
            _ => {
                self.redirect = Some(true);
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(cmd: &str) -> Vec<String> {
        dangers(cmd)
    }

    #[test]
    fn destructive_programs_in_command_position() {
        assert_eq!(d("rm -rf build"), ["rm"]);
        assert_eq!(d("mv a b"), ["mv"]);
        assert_eq!(d("sudo dd if=/dev/zero of=/dev/sda"), ["dd"]);
        assert_eq!(d("FOO=1 /bin/rm x"), ["rm"]);
        assert_eq!(d("find . -name '*.o' | xargs rm"), ["rm"]);
        assert_eq!(d("ls && truncate -s 0 log"), ["truncate"]);
        assert_eq!(d("echo $(rm x)"), ["rm"]);
        assert_eq!(d("timeout 5 rm x"), ["rm"]);
    }

    #[test]
    fn git_reset_clean_and_recursive_chmod() {
        assert_eq!(d("git reset --hard HEAD~1"), ["git reset"]);
        assert_eq!(d("git -C repo clean -fdx"), ["git clean"]);
        assert_eq!(d("git status"), Vec::<String>::new());
        assert_eq!(d("chmod -R 777 ."), ["chmod -R"]);
        assert_eq!(d("chmod 644 f"), Vec::<String>::new());
    }

    #[test]
    fn overwriting_redirection() {
        assert_eq!(d("echo hi > notes.txt"), [">"]);
        assert_eq!(d("echo hi>notes.txt"), [">"]);
        assert_eq!(d("echo hi >> notes.txt"), Vec::<String>::new());
        assert_eq!(d("make 2>&1 | tee log"), Vec::<String>::new());
        assert_eq!(d("cat x > /dev/null 2>/dev/null"), Vec::<String>::new());
        assert_eq!(d("sort < in"), Vec::<String>::new());
    }

    #[test]
    fn words_inside_quoted_arguments_do_not_count() {
        assert_eq!(d("echo 'rm -rf /'"), Vec::<String>::new());
        assert_eq!(d("grep \"git reset\" notes.md"), Vec::<String>::new());
        assert_eq!(d("echo \"a > b\""), Vec::<String>::new());
        assert_eq!(d("git commit -m 'rm old files'"), Vec::<String>::new());
        assert_eq!(d("cargo test"), Vec::<String>::new());
    }

    #[test]
    fn variables_that_load_code_are_flagged() {
        assert_eq!(d("LD_PRELOAD=/tmp/x.so true"), ["LD_PRELOAD"]);
        assert_eq!(d("FOO=1 true"), Vec::<String>::new());
        assert_eq!(d("PATH=/tmp/bin:/usr/bin make"), ["PATH"]);
    }

    #[test]
    fn shell_scripts_are_looked_into() {
        assert_eq!(d("bash -c 'cd x && rm -rf y'"), ["rm"]);
        assert_eq!(d("sh -lc \"echo hi > f\""), [">"]);
    }
}
