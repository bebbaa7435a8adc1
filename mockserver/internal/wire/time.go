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
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append2(b, m, '-')
	b = append2(b, d, 'T')
	b = append2(b, int(sod/3600), ':')
	b = append2(b, int(sod/60%60), ':')
	b = append2(b, int(sod%60), 0)
	b = b[:len(b)-1]
	if frac != 0 {
		var f [10]byte
		f[0] = '.'
		for i := 9; i > 0; i-- {
			f[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := 10
		for f[n-1] == '0' {
			n--
		}
		b = append(b, f[:n]...)
	}
	return append(b, 'Z')
}

// append2 appends v (0 to 99) as two digits, then sep.
func append2(b []byte, v int, sep byte) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10), sep)
}

// civil is the proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
// days-to-civil algorithm).
func civil(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
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
