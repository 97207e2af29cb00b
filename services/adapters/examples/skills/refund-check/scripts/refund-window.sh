#!/bin/sh
# Days from a purchase date to today (or $2), and whether that is inside the 30-day window.
set -eu
purchased="$1"
today="${2:-$(date -u +%Y-%m-%d)}"
from=$(date -u -d "$purchased" +%s)
to=$(date -u -d "$today" +%s)
days=$(( (to - from) / 86400 ))
if [ "$days" -ge 0 ] && [ "$days" -le 30 ]; then inside=true; else inside=false; fi
printf '{"purchased":"%s","today":"%s","days":%d,"inside":%s,"windowDays":30}\n' "$purchased" "$today" "$days" "$inside"
