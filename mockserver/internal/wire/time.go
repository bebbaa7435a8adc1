package wire

// AppendTime appends Time(ns) as time.RFC3339Nano formats it (fractional seconds without
// their trailing zeros, none when whole, and Z), computing the date from the day number
// rather than through time.Time's general formatter: a list page writes one for each
// campaign. Every int64 of nanoseconds falls in the years 1677 to 2262, so the year always
// has four digits.
func AppendTime(b []byte, ns int64) []byte {
	secs, frac := ns/1e9, ns%1e9
	if frac < 0 {
		secs, frac = secs-1, frac+1e9
	}
	days, sod := secs/86400, secs%86400
	if sod < 0 {
		days, sod = days-1, sod+86400
	}
	y, m, d := civil(days)
	var t [30]byte // 2006-01-02T15:04:05.999999999Z
	put2(t[0:], y/100)
	put2(t[2:], y%100)
	t[4], t[7], t[10], t[13], t[16] = '-', '-', 'T', ':', ':'
	put2(t[5:], m)
	put2(t[8:], d)
	put2(t[11:], int(sod/3600))
	put2(t[14:], int(sod/60%60))
	put2(t[17:], int(sod%60))
	n := 19
	if frac != 0 {
		t[19] = '.'
		f := uint32(frac)
		for i := 28; i > 20; i -= 2 {
			q := f % 100
			f /= 100
			t[i-1], t[i] = byte('0'+q/10), byte('0'+q%10)
		}
		t[20] = byte('0' + f)
		for n = 28; t[n] == '0'; n-- {
		}
		n++
	}
	t[n] = 'Z'
	return append(b, t[:n+1]...)
}

// put2 writes v (0 to 99) as two digits at the start of d.
func put2(d []byte, v int) { d[0], d[1] = byte('0'+v/10), byte('0'+v%10) }

// civil is the proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
// days-to-civil algorithm), for the days an int64 of nanoseconds reaches: from 1677, so that
// days+719468 (the day counted from 0000-03-01) is positive and unsigned arithmetic serves.
func civil(days int64) (year, month, day int) {
	z := uint64(days + 719468)
	era := z / 146097
	doe := z - era*146097                                  // day of the era, [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era, [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the year from March 1, [0, 365]
	mp := (5*doy + 2) / 153                                // month from March, [0, 11]
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if mp >= 10 {
		month = int(mp - 9)
	}
	year = int(yoe + era*400)
	if month <= 2 {
		year++
	}
	return year, month, day
}
