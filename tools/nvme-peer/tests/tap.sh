# SPDX-License-Identifier: GPL-2.0
# TAP for tests/*.sh (sourced): ok RESULT NAME counts the test in $n and a
# failure in $fails; tap_end prints the plan and the count and fails if
# any test did.
n=0
fails=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

tap_end() {
	echo "1..$n"
	echo "# $((n - fails)) passed, $fails failed"
	[ $fails = 0 ]
}
