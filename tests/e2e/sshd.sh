# Sourced by the e2e tests that need a target: an sshd on a free loopback port with a host key
# and a user key made for the test, stopped by pid (its session children too) when the test
# ends.  Not a test itself (tests/run.sh runs test_*.sh only).
#
#   . "$(dirname "$0")/sshd.sh"
#   sshd_start [CONFIG-LINE...] || exit 0
#       sets T, PORT, SSHD_PID, URL, SSHOPTS (for scalebench), SSH (ssh there)
#   trap sshd_stop EXIT    # also removes $WORK
SSHD=/usr/sbin/sshd

sshd_start() {
	if [ "$(id -u)" -ne 0 ] || [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null; then
		# CI runs as root with openssh-server installed (scripts/setup.sh).
		fail "sshd: needs root, $SSHD and ssh (apt-get install openssh-server openssh-client)"
		return 1
	fi
	T="$WORK/ssh"
	mkdir -m 700 "$T"
	ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$T/user_key"
	cp "$T/user_key.pub" "$T/authorized_keys"
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	echo "[127.0.0.1]:$PORT $(cut -d' ' -f1-2 "$T/host_key.pub")" >"$T/known_hosts"
	cat >"$T/sshd_config" <<CONF
ListenAddress 127.0.0.1
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PidFile $T/sshd.pid
CONF
	# SHLVL=1 in every session: bash run by sshd reads ~/.bashrc even for a command, and a
	# version manager's init there (pyenv's: ~1 s of CPU) would be paid by every ssh call of
	# the tests -- hundreds -- while nothing of this test needs it.
	local setenv="SetEnv SHLVL=1"
	for line in "$@"; do # the caller's own sshd_config lines
		case $line in
		"SetEnv "*) setenv="$line SHLVL=1" ;;
		*) echo "$line" >>"$T/sshd_config" ;;
		esac
	done
	echo "$setenv" >>"$T/sshd_config"
	# sshd refuses to start without its privilege separation directory.
	made_run_sshd=
	if [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd
		made_run_sshd=1
	fi
	"$SSHD" -D -e -f "$T/sshd_config" -p "$PORT" 2>"$T/sshd.log" &
	SSHD_PID=$!
	SSHOPTS=(--ssh-option "IdentityFile=$T/user_key" --ssh-option "UserKnownHostsFile=$T/known_hosts"
		--ssh-option "IdentitiesOnly=yes")
	SSH=(ssh -o BatchMode=yes -o IdentityFile="$T/user_key" -o UserKnownHostsFile="$T/known_hosts"
		-o IdentitiesOnly=yes -p "$PORT" root@127.0.0.1)
	URL="ssh://root@127.0.0.1:$PORT"
	for _ in $(seq 1 100); do
		"${SSH[@]}" true 2>/dev/null && break
		sleep 0.1
	done
	check "sshd answers on 127.0.0.1:$PORT" kill -0 "$SSHD_PID"
}

sshd_stop() {
	pkill -KILL -P "$SSHD_PID" 2>/dev/null
	kill "$SSHD_PID" 2>/dev/null
	wait "$SSHD_PID" 2>/dev/null
	[ -z "$made_run_sshd" ] || rmdir /run/sshd 2>/dev/null
	if declare -F work_remove >/dev/null; then work_remove; else rm -rf "$WORK"; fi
}
