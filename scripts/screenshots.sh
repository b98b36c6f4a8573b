#!/usr/bin/env bash
# Screenshots of every view, for the README and docs/views/: each view at the sizes, languages and
# themes asked (by default 1100×720 and 1920×1080, English and French, dark and light). The window
# fills a virtual screen of that size and is driven with the keyboard only — the palette (Ctrl+K)
# opens every view — so the same steps work at every size. Two demo agents in a small git project,
# a channel and a team; nothing leaves the machine.
#
# Needs a release build (cargo build --release) and Xvfb, xdotool and ImageMagick
# (apt-get install xvfb xdotool imagemagick).
# usage: scripts/screenshots.sh [OUT_DIR] [SIZES] [LANGS] [THEMES]
#   e.g. scripts/screenshots.sh docs/views "1100x720" "fr" "light"
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs/views}")
sizes=${2:-1100x720 1920x1080}
langs=${3:-en fr}
themes=${4:-dark light}
bin=$PWD/target/release/sidekicks
[ -x "$bin" ] || { echo "no release build: run cargo build --release first" >&2; exit 1; }
for tool in Xvfb xdotool import; do
  command -v $tool >/dev/null || { echo "$tool is missing: apt-get install xvfb xdotool imagemagick" >&2; exit 1; }
done
mkdir -p "$out"

pause() { sleep "${1:-0.6}"; }
key() { xdotool key --delay 120 "$@"; pause; }
typed() { xdotool type --delay 25 "$1"; pause 0.3; }
# Opens the palette, types WORDS and runs the first action found.
palette() { key ctrl+k; typed "$1"; key Return; pause 1; }
# Says TEXT in the composer (which has the keyboard when a conversation opens).
say() { typed "$1"; key Return; pause "${2:-2}"; }
shoot() { import -display "$DISPLAY" -window root "$out/$name-$1.png"; echo "$out/$name-$1.png"; }
# The palette's words in the language shown: `words EN FR`.
words() { if [ "$lang" = fr ]; then echo "$2"; else echo "$1"; fi; }

run_one() { # SIZE LANG THEME
  local size=$1 lang=$2 theme=$3 w=${1%x*} h=${1#*x}
  local name="$lang-$theme-$size" tmp
  tmp=$(mktemp -d)
  # A small project under git: files to show, a branch for the status bar.
  mkdir -p "$tmp/project/src" "$tmp/home"
  printf 'fn main() {\n    println!("Hello, world!");\n}\n' > "$tmp/project/src/main.rs"
  printf '# Shop\n\nA small web shop.\n' > "$tmp/project/README.md"
  # A team recipe: each member's copy is set up, and gets its ports.
  mkdir -p "$tmp/project/.sidekicks"
  printf 'setup = "echo installing; echo ready on port $PORT"\n[ports]\nbase = 3000\nnames = ["PORT"]\n' > "$tmp/project/.sidekicks/team.toml"
  git -C "$tmp/project" init -q -b main
  git -C "$tmp/project" -c user.name=Demo -c user.email=demo@example.com add -A
  git -C "$tmp/project" -c user.name=Demo -c user.email=demo@example.com commit -qm start
  cat > "$tmp/sidekicks.toml" <<EOF
[defaults]
language = "$lang"
theme = "$theme"

[[channel]]
name = "design"

[[agent]]
name = "alpha"
command = "$bin"
args = ["demo-agent", "--sessions"]
workspace = "$tmp/project"
channels = ["design"]

[[agent]]
name = "beta"
command = "$bin"
args = ["demo-agent"]
workspace = "$tmp/project"
channels = ["design"]
EOF
  export DISPLAY=:$((150 + RANDOM % 100))
  Xvfb "$DISPLAY" -screen 0 "${w}x${h}x24" -nolisten tcp >/dev/null 2>&1 &
  local xvfb=$!
  pause 1
  HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share \
    LANG=$([ "$lang" = fr ] && echo fr_FR.UTF-8 || echo en_US.UTF-8) \
    "$bin" --config "$tmp/sidekicks.toml" >"$tmp/app.log" 2>&1 &
  local app=$!
  local win
  win=$(xdotool search --sync --name Sidekicks | head -1)
  # No window manager: the window is placed and sized by hand to fill the screen.
  xdotool windowmove "$win" 0 0 windowsize "$win" "$w" "$h" windowfocus "$win"
  pause 3

  shoot empty
  say "plan" 3
  say "diff"
  say "think"
  say "code"
  say "run it"
  shoot conversation
  key ctrl+shift+i
  shoot inbox
  # The agent's pages (the palette offers them while the agent is shown).
  palette "$(words "go to alpha" "aller alpha")"
  palette "$(words "alpha: files" "alpha : fichiers")"
  shoot files
  palette "$(words "alpha: log" "alpha : journal")"
  shoot log
  palette "$(words "alpha: permissions" "alpha : permissions")"
  shoot permissions
  palette "design"
  say "@beta what do you think of the plan?" 3
  shoot channel
  key ctrl+shift+f
  typed "greeting"
  pause 2
  shoot search
  palette "$(words "settings" "glages")"
  shoot settings
  palette "$(words "new team" "nouvelle")"
  shoot new-team
  # The team, made with the keyboard: the name, then Tab to each member (the project is where the
  # first one works), the lead, Create.
  typed "Shop"
  key Tab Tab Tab Tab Tab Tab space Tab space Tab Tab space
  pause 3
  # Beta's member (an agent of its own, `beta · Shop`) works in its copy.
  palette "$(words "go to beta shop" "aller beta shop")"
  say "files" 3
  palette "$(words "go to team shop" "quipe shop")"
  pause 2
  shoot team
  # Beta's work in the review panel (its note, and an edit of main.rs made here in its copy).
  local main_rs
  main_rs=$(find "$tmp/home" -path '*/beta-Shop/src/main.rs' | head -1)
  if [ -n "$main_rs" ]; then
    printf 'use std::env;\n\nfn main() {\n    let name = env::args().nth(1).unwrap_or("world".into());\n    println!("Hello, {name}!");\n}\n' > "$main_rs"
    pause 2
  fi
  palette "$(words "review beta" "relire beta")"
  pause 2
  shoot review
  palette "$(words "about" "propos")"
  shoot about
  key Escape
  key ctrl+k
  typed "$(words "go" "aller")"
  shoot palette
  key Escape
  # Last: the terminal keeps the keyboard (the window's shortcuts stand aside).
  palette "$(words "go to alpha" "aller alpha")"
  palette "$(words "alpha: terminal" "alpha : terminal")"
  pause 2
  typed "ls -la && git log --oneline"
  key Return
  pause 1
  shoot terminal

  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  wait "$xvfb" 2>/dev/null || true
  rm -rf "$tmp"
}

for size in $sizes; do
  for lang in $langs; do
    for theme in $themes; do
      run_one "$size" "$lang" "$theme"
    done
  done
done
