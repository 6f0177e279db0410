#!/usr/bin/env bash
# Turns a fresh Raspberry Pi OS Bookworm (Pi 4, Pi 5, Zero 2 W) into a senet-pi exhibit; see the
# docs' "Exhibit". Safe to run again (an update: it keeps the config, the PIN and the journal).
# Plain Debian 12 on a Pi works too (lgpio then comes from PyPI's wheel: no compiler either way).
#
#   sudo exhibit/install.sh            the service: venv in /opt/senet-pi, user senet, senet-pi.service
#   sudo exhibit/install.sh --kiosk    the same, and the page full-screen on the attached display
#   sudo exhibit/install.sh --wheels DIR   install senet-pi[pi] from wheels in DIR, with no internet
#   sudo exhibit/install.sh --https    the page over HTTPS: a certificate made here (kept), or yours in its place
#   sudo exhibit/install.sh --uninstall    stop and remove the units, the udev rules, the venv and the users
#                                          (keeps /etc/senet-pi and the journal in /var/lib/senet-pi)
#   sudo exhibit/install.sh --mqtt URL --board NAME   put the board on the fleet's MQTT broker
#                                          (docs: "Fleet"; written to config.toml, kept on updates)
#   sudo exhibit/install.sh --backup-daily DIR   a backup every night into DIR (a USB stick, a share;
#                                          the 14 newest kept): senet-pi-backup.timer
#   sudo exhibit/install.sh --anywhere     on Debian 12 that is not on a Pi too (a test bench, the
#                                          arm64 check): the simulated board
#   exhibit/install.sh --image --wheels DIR   inside a card's root being built (exhibit/build-image):
#                                          nothing of this machine (no config.toml, host name, secret
#                                          key): the card makes those at its first boot
#   exhibit/install.sh --print-packages [--kiosk]   only say the Debian packages it needs
# The journal's own partition (ext4, label senet-journal), now or made later, is mounted on
# /var/lib/senet-pi at boot by senet-pi-journal.service; a journal already there is moved onto it
# (a card's journal partition is its own: exhibit/card/fstab).
# Where no systemd runs (a container, a chroot) the units are installed but not enabled nor started.
#
# The internet is used here only by apt and pip (or not at all with --wheels and a local apt
# mirror); at run time nothing is fetched.
set -euo pipefail

PREFIX=/opt/senet-pi          # the venv; senet-pi.service runs $PREFIX/bin/senet-pi
PYCACHE=/var/cache/senet-pi/python  # the service's compiled modules (PYTHONPYCACHEPREFIX in the unit)
CONFIG=/etc/senet-pi          # config.toml (SECRET_KEY, the PIN's hash), senet-pi.env, kiosk.env
CHROMIUM_POLICY=/etc/chromium/policies/managed/senet-pi-kiosk.json  # the kiosk's browser (Debian's chromium)
STATE=/var/lib/senet-pi       # the journal (StateDirectory=); its own partition when labelled senet-journal
UNITS=/etc/systemd/system
WRAPPER=/usr/local/bin/senet-pi
JOURNAL_LABEL=senet-journal
SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

kiosk=no
https=no
uninstall=no
anywhere=no
wheels=""
mqtt=""
image=no
print_packages=no
board=""
backup_dir=""

say() { printf 'senet-pi install: %s\n' "$*"; }
die() { printf 'senet-pi install: %s\n' "$*" >&2; exit 1; }

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }  # the comment at the top

while [ $# -gt 0 ]; do
  case "$1" in
    --kiosk) kiosk=yes ;;
    --https) https=yes ;;
    --uninstall) uninstall=yes ;;
    --anywhere) anywhere=yes ;;
    --image) image=yes anywhere=yes ;;
    --print-packages) print_packages=yes ;;
    --wheels)
      [ $# -ge 2 ] || die "--wheels needs a folder of wheels"
      wheels=$2
      shift
      ;;
    --backup-daily)
      [ $# -ge 2 ] || die "--backup-daily needs a folder (see --help)"
      backup_dir=$2
      shift
      ;;
    --mqtt | --board)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      if [ "$1" = --mqtt ]; then mqtt=$2; else board=$2; fi
      shift
      ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done

# ---------------------------------------------------------------- the Debian packages it needs
# No compiler: lgpio is Debian's python3-lgpio (Raspberry Pi OS) or PyPI's wheel (plain Debian),
# and the RPi.GPIO API comes from rpi-lgpio, pure Python over lgpio. python3-spidev drives an LED
# strip on the Pi's SPI (the venv sees Debian's packages: --system-site-packages below).
packages=(python3-venv python3-lgpio python3-spidev sqlite3)
if [ "$kiosk" = yes ]; then
  packages+=(xserver-xorg-core xserver-xorg-input-libinput xinit x11-xserver-utils fonts-dejavu-core openssl)
  # Raspberry Pi OS names its build "chromium-browser" in some releases and "chromium" in others;
  # Debian (and a card's build, which asks before its apt knows any) names it "chromium".
  if [ "$print_packages" = yes ] || apt-cache show chromium >/dev/null 2>&1; then packages+=(chromium); else packages+=(chromium-browser); fi
fi
if [ "$print_packages" = yes ]; then  # exhibit/build-image puts them in the card's base root
  printf '%s\n' "${packages[@]}"
  exit 0
fi

# ---------------------------------------------------------------- checks, before anything changes
if [ "$image" = yes ] && { [ -n "$mqtt" ] || [ -n "$board" ] || [ "$https" = yes ]; }; then
  die "--image takes no --mqtt, --board or --https: a card sets those from its technician file (senet-pi.toml)"
fi
if [ -n "$mqtt" ] || [ -n "$board" ]; then  # the fleet's settings, checked as fleet-settings writes them
  [ -n "$mqtt" ] || die "--board needs --mqtt URL too (the fleet's broker)"
  [ -n "$board" ] || board=$(hostname -s)
  [[ "$mqtt" =~ ^mqtts?://[^[:space:]\'\"\\]+$ ]] || die "--mqtt must be mqtt://HOST[:PORT] or mqtts://..., with no spaces or quotes"
  [[ "$board" =~ ^[A-Za-z0-9_-]{1,64}$ ]] || die "--board may hold only letters, digits, - and _ (1 to 64 of them)"
fi
if [ -n "$backup_dir" ]; then
  [[ "$backup_dir" =~ ^/[^[:space:]\'\"\\]*$ ]] || die "--backup-daily needs a full path with no spaces or quotes, like /media/backup"
fi
[ "$(id -u)" -eq 0 ] || die "run it as root: sudo $0"
[ -r /etc/os-release ] || die "this is not Raspberry Pi OS (no /etc/os-release)"
# shellcheck source=/dev/null
codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
[ "$codename" = bookworm ] || die "this needs Raspberry Pi OS Bookworm; this system is '${codename:-unknown}'"
model=$( { tr -d '\0' </proc/device-tree/model; } 2>/dev/null || true)
if [ ! -e /etc/rpi-issue ] && [[ "$model" != "Raspberry Pi"* ]] && [ "$anywhere" = no ]; then
  die "this is Debian $codename but neither Raspberry Pi OS nor on a Raspberry Pi: --anywhere installs it all the same (the simulated board)"
fi
case "$model" in
  "Raspberry Pi 4"* | "Raspberry Pi 5"* | "Raspberry Pi Zero 2"* | "Raspberry Pi Compute Module 4"*) ;;
  *) say "warning: made for a Pi 4, Pi 5 or Zero 2 W; this is '${model:-not a Raspberry Pi}' (going on)" ;;
esac
# systemd runs here (not a container or a chroot): the units are enabled and started.
systemd=no
[ -d /run/systemd/system ] && systemd=yes
[ -n "$wheels" ] && { [ -d "$wheels" ] || die "--wheels $wheels is not a folder"; }

# ---------------------------------------------------------------- uninstall
if [ "$uninstall" = yes ]; then
  for unit in senet-pi-kiosk.service senet-pi-backup.timer senet-pi-backup.service senet-pi.service senet-pi-journal.service; do
    systemctl disable --now "$unit" 2>/dev/null || true
    rm -f "$UNITS/$unit"
  done
  rm -f /etc/udev/rules.d/60-senet-pi.rules "$CHROMIUM_POLICY"
  systemctl daemon-reload
  rm -rf "$PREFIX" "$WRAPPER" "$(dirname "$PYCACHE")"
  for user in senet-kiosk senet; do
    if id "$user" >/dev/null 2>&1; then deluser --quiet --system "$user" || true; fi
  done
  say "removed the service, the kiosk, the venv and the users"
  say "kept $CONFIG (the PIN) and $STATE (the journal): remove them by hand if they should go"
  exit 0
fi

# ---------------------------------------------------------------- Debian packages
missing=()
kept=()
for p in "${packages[@]}"; do
  # A card's root has no apt lists (exhibit/build-image put the packages in): lgpio comes from PyPI.
  if [ "$image" = yes ] && [ "$p" = python3-lgpio ]; then continue; fi
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    kept+=("$p")
  elif [ "$p" = python3-lgpio ] && [ -x "$PREFIX/bin/python" ] \
    && "$PREFIX/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("lgpio") is None)' 2>/dev/null; then
    # Plain Debian has no python3-lgpio: an earlier run put PyPI's lgpio in the venv, so no apt.
    kept+=("lgpio (PyPI's, in the venv)")
  else
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  printf -v list '%s, ' "${kept[@]}"
  say "kept the Debian packages: ${list%, } (all there: no apt-get)"
else
  say "installing ${missing[*]} (Debian packages)"
  apt-get update -q
  if [[ " ${missing[*]} " == *" python3-lgpio "* ]] && ! apt-cache show python3-lgpio >/dev/null 2>&1; then
    # Raspberry Pi OS has it; plain Debian does not: PyPI's lgpio wheel goes into the venv instead.
    say "python3-lgpio is not in this system's apt (plain Debian): lgpio comes from PyPI with senet-pi[pi]"
    keep=()
    for p in "${missing[@]}"; do [ "$p" = python3-lgpio ] || keep+=("$p"); done
    missing=("${keep[@]}")
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# ---------------------------------------------------------------- the user and its folders
if ! id senet >/dev/null 2>&1; then
  adduser --quiet --system --group --home "$STATE" --no-create-home senet
else
  say "kept the user senet"
fi
# The unit's SupplementaryGroups (the pins, the USB bridge, an LED strip on the SPI), read from the
# unit itself: systemd refuses to start a unit naming a group that does not exist.
read -r -a groups <<<"$(sed -n 's/^SupplementaryGroups=//p' "$SOURCE/exhibit/senet-pi.service")"
for group in "${groups[@]}"; do
  getent group "$group" >/dev/null || groupadd --system "$group"
  usermod -aG "$group" senet
done
install -d -m 0750 -o senet -g senet "$STATE"
install -d -m 0750 -o root -g senet "$CONFIG"
# The devices for those groups: /dev/gpiochip* to gpio, /dev/spidev* to spi (Raspberry Pi OS has
# rules to that effect; plain Debian, a card's system, has none). Applied now where udev runs.
install -D -m 0644 "$SOURCE/exhibit/60-senet-pi.rules" /etc/udev/rules.d/60-senet-pi.rules
if [ "$image" = no ] && [ -d /run/udev ] && command -v udevadm >/dev/null 2>&1; then
  udevadm control --reload 2>/dev/null || true
  udevadm trigger --subsystem-match=gpio --subsystem-match=spidev 2>/dev/null || true
fi


# ---------------------------------------------------------------- the venv with senet-pi[pi]
# --system-site-packages: lgpio comes from Debian (python3-lgpio, built for this kernel and Pi)
# where apt has it; pip then leaves it be, and takes PyPI's wheel only where it is missing.
if [ -x "$PREFIX/bin/python" ]; then
  say "kept the venv $PREFIX: updating senet-pi[pi] in it (pip)"
else
  python3 -m venv --system-site-packages "$PREFIX"
  say "installing senet-pi[pi] into the venv $PREFIX (pip)"
fi
if [ -n "$wheels" ]; then
  "$PREFIX/bin/pip" install -q --no-index --find-links "$wheels" --upgrade "senet-pi[pi]"
else
  "$PREFIX/bin/pip" install -q --upgrade "${SOURCE}[pi]"
fi
install -m 0644 "$SOURCE/README.md" "$PREFIX/README.md"
# The service's Python runs without docstrings, its compiled modules in its cache (PYTHONOPTIMIZE,
# PYTHONPYCACHEPREFIX in the unit): compiled here once (and read from the card under the overlay).
say "compiling the venv and Python's library as the service runs them, into $PYCACHE"
"$SOURCE/exhibit/compile-ahead" "$PREFIX/bin/python" "$PYCACHE"
install -m 0755 "$SOURCE/exhibit/kiosk-session" "$PREFIX/kiosk-session"
install -m 0755 "$SOURCE/exhibit/new-config" "$PREFIX/new-config"  # a card's first boot uses it too

# `senet-pi` for the technician, with the service's config and journal: sudo senet-pi set-pin, senet-pi status
cat >"$WRAPPER" <<EOF
#!/bin/sh
# Written by exhibit/install.sh: senet-pi with the exhibit's config and journal.
export SENET_PI_INSTANCE="\${SENET_PI_INSTANCE:-$CONFIG}"
export SENET_PI_JOURNAL="\${SENET_PI_JOURNAL:-$STATE/journal.sqlite}"
exec $PREFIX/bin/senet-pi "\$@"
EOF
chmod 0755 "$WRAPPER"

# ---------------------------------------------------------------- config (kept when it exists)
# Every write goes through `senet-pi config set`: checked as the service checks it at start, at the
# top of the file (never inside a [contacts] table of the museum's), comments, owner and mode kept.
settings=("$PREFIX/bin/senet-pi" config set --config "$CONFIG/config.toml")
if [ "$image" = yes ]; then
  # A card makes its config.toml at its first boot instead (exhibit/new-config, from its
  # senet-pi-card.service), on its journal partition: a secret key and a host name of its own.
  say "a card's config.toml is made at its first boot: none in the image"
elif [ ! -e "$CONFIG/config.toml" ]; then
  install -m 0640 -o root -g senet /dev/null "$CONFIG/config.toml"
  "$SOURCE/exhibit/new-config" "$CONFIG/config.toml" "$PREFIX/bin/senet-pi"
  say "wrote $CONFIG/config.toml: exhibit mode, a new secret key"
else
  say "kept $CONFIG/config.toml as it is (its settings, the PIN, the secret key)"
fi
if [ -e "$CONFIG/config.toml" ]; then
  chown root:senet "$CONFIG/config.toml"
  chmod 0640 "$CONFIG/config.toml"  # readable by the service only: it may hold the broker's password
fi
if [ "$https" = yes ]; then
  # Staff sign in over the museum's Wi-Fi: HTTPS with Secure cookies. A self-signed certificate for
  # this host's names, made once and kept (put your own tls.crt and tls.key in its place to use it).
  if [ ! -e "$CONFIG/tls.crt" ] || [ ! -e "$CONFIG/tls.key" ]; then
    command -v openssl >/dev/null 2>&1 || apt-get install -y -q openssl
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=$(hostname).local" \
      -addext "subjectAltName=DNS:$(hostname).local,DNS:localhost,IP:127.0.0.1" \
      -keyout "$CONFIG/tls.key" -out "$CONFIG/tls.crt" 2>/dev/null
    say "made a self-signed HTTPS certificate for $(hostname).local: $CONFIG/tls.crt"
  else
    say "kept the HTTPS certificate $CONFIG/tls.crt and its key"
  fi
  chown root:senet "$CONFIG/tls.key"
  chmod 0640 "$CONFIG/tls.key"
  if "$PREFIX/bin/senet-pi" config get --config "$CONFIG/config.toml" TLS_CERT >/dev/null 2>&1; then
    say "kept TLS_CERT and TLS_KEY in $CONFIG/config.toml"
  else
    "${settings[@]}" TLS_CERT "$CONFIG/tls.crt" TLS_KEY "$CONFIG/tls.key" >/dev/null
  fi
fi
if [ -n "$mqtt" ]; then
  PATH="$PREFIX/bin:$PATH" "$SOURCE/exhibit/fleet-settings" "$CONFIG/config.toml" "$mqtt" "$board"
fi
if [ ! -e "$CONFIG/senet-pi.env" ]; then
  cat >"$CONFIG/senet-pi.env" <<'EOF'
# Arguments for `senet-pi run` (see the README, "Commands"). --host 0.0.0.0: phones may open the page.
# Serial bridge instead of the pins: SENET_PI_ARGS="--host 0.0.0.0 --backend serial"
SENET_PI_ARGS="--host 0.0.0.0"
EOF
else
  say "kept $CONFIG/senet-pi.env (the service's arguments)"
fi

# ---------------------------------------------------------------- the journal's own partition
# ext4, labelled senet-journal: mounted on $STATE by senet-pi-journal.service at every boot (and when
# it appears later), so the journal stays writable under the read-only overlay. Never over a journal
# in use: exhibit/journal-partition moves the journal onto an empty partition, or refuses.
if [ "$image" = yes ]; then
  say "a card mounts its own journal partition (exhibit/card/fstab): no senet-pi-journal.service"
else
  install -m 0755 "$SOURCE/exhibit/journal-partition" "$PREFIX/journal-partition"
  install -m 0644 "$SOURCE/exhibit/senet-pi-journal.service" "$UNITS/senet-pi-journal.service"
  if grep -q "^LABEL=$JOURNAL_LABEL " /etc/fstab 2>/dev/null; then  # an older installer's line
    sed -i "/^LABEL=$JOURNAL_LABEL /d" /etc/fstab
    say "removed the journal partition's line from /etc/fstab: senet-pi-journal.service mounts it now"
  fi
  if ! blkid -L "$JOURNAL_LABEL" >/dev/null 2>&1; then
    say "no partition labelled $JOURNAL_LABEL: the journal is in $STATE on the root (one made later is used from the next boot)"
  elif mountpoint -q "$STATE"; then
    say "kept the journal partition mounted on $STATE, and the journal on it"
  else
    if [ "$systemd" = yes ] && systemctl is-active --quiet senet-pi.service; then
      say "stopping senet-pi to move its journal onto the partition labelled $JOURNAL_LABEL"
      systemctl stop senet-pi.service
    fi
    "$SOURCE/exhibit/journal-partition" "$STATE" ||
      say "warning: the journal stays in $STATE on the root (what to do: docs, Troubleshooting)"
  fi
  if [ -e "$STATE/journal.sqlite" ]; then
    say "kept the journal $STATE/journal.sqlite"
  fi
fi

# ---------------------------------------------------------------- units
install -m 0644 "$SOURCE/exhibit/senet-pi.service" "$UNITS/senet-pi.service"
if [ "$kiosk" = yes ]; then
  if ! id senet-kiosk >/dev/null 2>&1; then
    adduser --quiet --system --group --home /run/senet-kiosk --no-create-home senet-kiosk
  fi
  for group in video render input tty; do
    if getent group "$group" >/dev/null; then usermod -aG "$group" senet-kiosk; fi
  done
  install -m 0644 "$SOURCE/exhibit/senet-pi-kiosk.service" "$UNITS/senet-pi-kiosk.service"
  # Chromium's own policy: no offer to translate the page (seen on the kiosk card's screen: a German
  # page and an English browser put a "German | English" bubble over the board). A flag no longer does it.
  install -D -m 0644 "$SOURCE/exhibit/chromium-policy.json" "$CHROMIUM_POLICY"
fi
# ---------------------------------------------------------------- the daily backup (optional)
if [ -n "$backup_dir" ]; then
  install -d -m 0700 "$backup_dir"
  cat >"$CONFIG/backup.env" <<EOF
# Written by exhibit/install.sh --backup-daily: where senet-pi-backup.service writes, and how many it keeps.
SENET_PI_BACKUP_ARGS="$backup_dir --keep 14"
EOF
  say "a backup every night into $backup_dir, the 14 newest kept (senet-pi-backup.timer)"
elif [ -e "$UNITS/senet-pi-backup.timer" ]; then
  say "kept the daily backup ($CONFIG/backup.env says where)"
fi
if [ -e "$CONFIG/backup.env" ]; then
  install -m 0644 "$SOURCE/exhibit/senet-pi-backup.service" "$UNITS/senet-pi-backup.service"
  install -m 0644 "$SOURCE/exhibit/senet-pi-backup.timer" "$UNITS/senet-pi-backup.timer"
fi
if [ "$image" = yes ]; then  # a card's root: the units start at its boot
  systemctl enable --quiet senet-pi.service
  [ "$kiosk" = no ] || systemctl enable --quiet senet-pi-kiosk.service
  say "done: $("$PREFIX/bin/python" -c 'import senet_pi; print("senet-pi", senet_pi.__version__)') is in the image, its units enabled"
  exit 0
fi
if [ "$systemd" = no ]; then
  say "no systemd runs here (a container or a chroot): the units are in $UNITS, neither enabled nor started"
  say "done: $("$WRAPPER" --version) is installed; see: senet-pi status"
  "$WRAPPER" status || true
  exit 0
fi
systemctl daemon-reload
# systemctl enable warns that the journal's device unit "does not exist" even with the partition
# plugged in (it looks for unit files, and a device has none): not a fault, so not shown.
enabled=$(systemctl enable senet-pi-journal.service senet-pi.service 2>&1) || { printf '%s\n' "$enabled" >&2; exit 1; }
printf '%s\n' "$enabled" | grep -v 'as a dependency to a non-existent unit dev-disk-by' || true
systemctl restart senet-pi.service
if [ -e "$UNITS/senet-pi-backup.timer" ]; then
  systemctl enable --now senet-pi-backup.timer
fi
if [ "$kiosk" = yes ]; then
  systemctl enable senet-pi-kiosk.service
  systemctl restart senet-pi-kiosk.service
fi

say "done: $("$WRAPPER" --version) runs as senet-pi.service; see: senet-pi status"
"$WRAPPER" status || true
