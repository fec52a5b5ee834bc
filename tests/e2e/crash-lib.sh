# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the tests that kill or crash a recording (sourced after
# lib.sh): find the QEMU that `qtrace record` started, and wait for a
# record in the background without ever hanging the test.

# qemu_of PID: the QEMU process qtrace record PID started.
qemu_of() {
    awk '{ print $1 }' "/proc/$1/task/$1/children" 2> /dev/null
}

# wait_rec PID: qtrace record's status; one that has not ended after 10 s
# (a signal it did not pass on) has its QEMU killed, status 124.
wait_rec() {
    i=0
    while kill -0 "$1" 2> /dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 "$1" 2> /dev/null; then
        kill -KILL "$(qemu_of "$1")" 2> /dev/null
        wait "$1"
        return 124
    fi
    wait "$1"
}
