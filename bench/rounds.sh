# Sourced by the interleaved benchmarks (overhead.sh, monitors.sh, profile.sh): their common
# options (-r ROUNDS, -s SECONDS_PER_ROUND, or env ROUNDS and ROUND_S, defaults 5 and 5), the
# check that the binary is built, and a temp directory removed on exit.
# Sets: rounds, round_s, sb, tmp.  Exits 2 on bad usage.
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
round_s=${ROUND_S:-5}
usage="usage: bench/$(basename "$0") [-r ROUNDS] [-s SECONDS_PER_ROUND]  (defaults 5 and 5)"
while getopts r:s:h opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	s) round_s=$OPTARG ;;
	h) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
if ! [[ $rounds =~ ^[1-9][0-9]*$ && $round_s =~ ^[0-9]*\.?[0-9]+$ ]]; then
	echo "$usage" >&2
	exit 2
fi
sb=build/scalebench
[[ -x $sb ]] || { echo "$(basename "$0"): $sb missing; run 'make'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
