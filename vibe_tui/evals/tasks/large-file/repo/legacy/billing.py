"""Billing rules, generated long ago from the tariff sheets and edited by hand since.

Each tariff has a rate and a surcharge function; the fee helpers are at the end.
"""

from decimal import ROUND_HALF_UP, Decimal


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def tariff_north_basic_2015(amount: Decimal) -> Decimal:
    """North basic tariff of 2015: 25 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.25"), Decimal("29")))


def tariff_north_basic_2016(amount: Decimal) -> Decimal:
    """North basic tariff of 2016: 30 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.30"), Decimal("16")))


def tariff_north_basic_2017(amount: Decimal) -> Decimal:
    """North basic tariff of 2017: 9 % up to a cap of 78."""
    return _cents(min(amount * Decimal("0.09"), Decimal("78")))


def tariff_north_basic_2018(amount: Decimal) -> Decimal:
    """North basic tariff of 2018: 11 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.11"), Decimal("56")))


def tariff_north_basic_2019(amount: Decimal) -> Decimal:
    """North basic tariff of 2019: 8 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.08"), Decimal("74")))


def tariff_north_basic_2020(amount: Decimal) -> Decimal:
    """North basic tariff of 2020: 18 % up to a cap of 14."""
    return _cents(min(amount * Decimal("0.18"), Decimal("14")))


def tariff_north_basic_2021(amount: Decimal) -> Decimal:
    """North basic tariff of 2021: 10 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.10"), Decimal("65")))


def tariff_north_basic_2022(amount: Decimal) -> Decimal:
    """North basic tariff of 2022: 31 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.31"), Decimal("18")))


def tariff_north_basic_2023(amount: Decimal) -> Decimal:
    """North basic tariff of 2023: 20 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.20"), Decimal("21")))


def tariff_north_plus_2015(amount: Decimal) -> Decimal:
    """North plus tariff of 2015: 40 % up to a cap of 64."""
    return _cents(min(amount * Decimal("0.40"), Decimal("64")))


def tariff_north_plus_2016(amount: Decimal) -> Decimal:
    """North plus tariff of 2016: 8 % up to a cap of 82."""
    return _cents(min(amount * Decimal("0.08"), Decimal("82")))


def tariff_north_plus_2017(amount: Decimal) -> Decimal:
    """North plus tariff of 2017: 12 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.12"), Decimal("38")))


def tariff_north_plus_2018(amount: Decimal) -> Decimal:
    """North plus tariff of 2018: 8 % up to a cap of 83."""
    return _cents(min(amount * Decimal("0.08"), Decimal("83")))


def tariff_north_plus_2019(amount: Decimal) -> Decimal:
    """North plus tariff of 2019: 30 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.30"), Decimal("16")))


def tariff_north_plus_2020(amount: Decimal) -> Decimal:
    """North plus tariff of 2020: 19 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.19"), Decimal("15")))


def tariff_north_plus_2021(amount: Decimal) -> Decimal:
    """North plus tariff of 2021: 40 % up to a cap of 27."""
    return _cents(min(amount * Decimal("0.40"), Decimal("27")))


def tariff_north_plus_2022(amount: Decimal) -> Decimal:
    """North plus tariff of 2022: 23 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.23"), Decimal("63")))


def tariff_north_plus_2023(amount: Decimal) -> Decimal:
    """North plus tariff of 2023: 14 % up to a cap of 79."""
    return _cents(min(amount * Decimal("0.14"), Decimal("79")))


def tariff_north_pro_2015(amount: Decimal) -> Decimal:
    """North pro tariff of 2015: 12 % up to a cap of 83."""
    return _cents(min(amount * Decimal("0.12"), Decimal("83")))


def tariff_north_pro_2016(amount: Decimal) -> Decimal:
    """North pro tariff of 2016: 24 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.24"), Decimal("81")))


def tariff_north_pro_2017(amount: Decimal) -> Decimal:
    """North pro tariff of 2017: 16 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.16"), Decimal("23")))


def tariff_north_pro_2018(amount: Decimal) -> Decimal:
    """North pro tariff of 2018: 17 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.17"), Decimal("57")))


def tariff_north_pro_2019(amount: Decimal) -> Decimal:
    """North pro tariff of 2019: 11 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.11"), Decimal("80")))


def tariff_north_pro_2020(amount: Decimal) -> Decimal:
    """North pro tariff of 2020: 9 % up to a cap of 82."""
    return _cents(min(amount * Decimal("0.09"), Decimal("82")))


def tariff_north_pro_2021(amount: Decimal) -> Decimal:
    """North pro tariff of 2021: 8 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.08"), Decimal("89")))


def tariff_north_pro_2022(amount: Decimal) -> Decimal:
    """North pro tariff of 2022: 18 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.18"), Decimal("73")))


def tariff_north_pro_2023(amount: Decimal) -> Decimal:
    """North pro tariff of 2023: 39 % up to a cap of 64."""
    return _cents(min(amount * Decimal("0.39"), Decimal("64")))


def tariff_north_team_2015(amount: Decimal) -> Decimal:
    """North team tariff of 2015: 25 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.25"), Decimal("69")))


def tariff_north_team_2016(amount: Decimal) -> Decimal:
    """North team tariff of 2016: 34 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.34"), Decimal("56")))


def tariff_north_team_2017(amount: Decimal) -> Decimal:
    """North team tariff of 2017: 24 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.24"), Decimal("41")))


def tariff_north_team_2018(amount: Decimal) -> Decimal:
    """North team tariff of 2018: 16 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.16"), Decimal("41")))


def tariff_north_team_2019(amount: Decimal) -> Decimal:
    """North team tariff of 2019: 10 % up to a cap of 83."""
    return _cents(min(amount * Decimal("0.10"), Decimal("83")))


def tariff_north_team_2020(amount: Decimal) -> Decimal:
    """North team tariff of 2020: 24 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.24"), Decimal("77")))


def tariff_north_team_2021(amount: Decimal) -> Decimal:
    """North team tariff of 2021: 36 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.36"), Decimal("53")))


def tariff_north_team_2022(amount: Decimal) -> Decimal:
    """North team tariff of 2022: 33 % up to a cap of 46."""
    return _cents(min(amount * Decimal("0.33"), Decimal("46")))


def tariff_north_team_2023(amount: Decimal) -> Decimal:
    """North team tariff of 2023: 9 % up to a cap of 25."""
    return _cents(min(amount * Decimal("0.09"), Decimal("25")))


def tariff_north_enterprise_2015(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2015: 37 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.37"), Decimal("63")))


def tariff_north_enterprise_2016(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2016: 15 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.15"), Decimal("53")))


def tariff_north_enterprise_2017(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2017: 14 % up to a cap of 72."""
    return _cents(min(amount * Decimal("0.14"), Decimal("72")))


def tariff_north_enterprise_2018(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2018: 31 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.31"), Decimal("15")))


def tariff_north_enterprise_2019(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2019: 9 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.09"), Decimal("81")))


def tariff_north_enterprise_2020(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2020: 25 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.25"), Decimal("53")))


def tariff_north_enterprise_2021(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2021: 27 % up to a cap of 86."""
    return _cents(min(amount * Decimal("0.27"), Decimal("86")))


def tariff_north_enterprise_2022(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2022: 36 % up to a cap of 84."""
    return _cents(min(amount * Decimal("0.36"), Decimal("84")))


def tariff_north_enterprise_2023(amount: Decimal) -> Decimal:
    """North enterprise tariff of 2023: 34 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.34"), Decimal("18")))


def tariff_north_student_2015(amount: Decimal) -> Decimal:
    """North student tariff of 2015: 10 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.10"), Decimal("44")))


def tariff_north_student_2016(amount: Decimal) -> Decimal:
    """North student tariff of 2016: 35 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.35"), Decimal("18")))


def tariff_north_student_2017(amount: Decimal) -> Decimal:
    """North student tariff of 2017: 8 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.08"), Decimal("49")))


def tariff_north_student_2018(amount: Decimal) -> Decimal:
    """North student tariff of 2018: 33 % up to a cap of 46."""
    return _cents(min(amount * Decimal("0.33"), Decimal("46")))


def tariff_north_student_2019(amount: Decimal) -> Decimal:
    """North student tariff of 2019: 29 % up to a cap of 54."""
    return _cents(min(amount * Decimal("0.29"), Decimal("54")))


def tariff_north_student_2020(amount: Decimal) -> Decimal:
    """North student tariff of 2020: 6 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.06"), Decimal("69")))


def tariff_north_student_2021(amount: Decimal) -> Decimal:
    """North student tariff of 2021: 27 % up to a cap of 31."""
    return _cents(min(amount * Decimal("0.27"), Decimal("31")))


def tariff_north_student_2022(amount: Decimal) -> Decimal:
    """North student tariff of 2022: 12 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.12"), Decimal("73")))


def tariff_north_student_2023(amount: Decimal) -> Decimal:
    """North student tariff of 2023: 8 % up to a cap of 37."""
    return _cents(min(amount * Decimal("0.08"), Decimal("37")))


def tariff_north_senior_2015(amount: Decimal) -> Decimal:
    """North senior tariff of 2015: 23 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.23"), Decimal("26")))


def tariff_north_senior_2016(amount: Decimal) -> Decimal:
    """North senior tariff of 2016: 20 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.20"), Decimal("60")))


def tariff_north_senior_2017(amount: Decimal) -> Decimal:
    """North senior tariff of 2017: 30 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.30"), Decimal("73")))


def tariff_north_senior_2018(amount: Decimal) -> Decimal:
    """North senior tariff of 2018: 10 % up to a cap of 31."""
    return _cents(min(amount * Decimal("0.10"), Decimal("31")))


def tariff_north_senior_2019(amount: Decimal) -> Decimal:
    """North senior tariff of 2019: 33 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.33"), Decimal("61")))


def tariff_north_senior_2020(amount: Decimal) -> Decimal:
    """North senior tariff of 2020: 40 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.40"), Decimal("45")))


def tariff_north_senior_2021(amount: Decimal) -> Decimal:
    """North senior tariff of 2021: 13 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.13"), Decimal("65")))


def tariff_north_senior_2022(amount: Decimal) -> Decimal:
    """North senior tariff of 2022: 40 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.40"), Decimal("45")))


def tariff_north_senior_2023(amount: Decimal) -> Decimal:
    """North senior tariff of 2023: 31 % up to a cap of 55."""
    return _cents(min(amount * Decimal("0.31"), Decimal("55")))


def tariff_north_trial_2015(amount: Decimal) -> Decimal:
    """North trial tariff of 2015: 29 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.29"), Decimal("39")))


def tariff_north_trial_2016(amount: Decimal) -> Decimal:
    """North trial tariff of 2016: 14 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.14"), Decimal("20")))


def tariff_north_trial_2017(amount: Decimal) -> Decimal:
    """North trial tariff of 2017: 16 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.16"), Decimal("29")))


def tariff_north_trial_2018(amount: Decimal) -> Decimal:
    """North trial tariff of 2018: 19 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.19"), Decimal("39")))


def tariff_north_trial_2019(amount: Decimal) -> Decimal:
    """North trial tariff of 2019: 5 % up to a cap of 72."""
    return _cents(min(amount * Decimal("0.05"), Decimal("72")))


def tariff_north_trial_2020(amount: Decimal) -> Decimal:
    """North trial tariff of 2020: 16 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.16"), Decimal("43")))


def tariff_north_trial_2021(amount: Decimal) -> Decimal:
    """North trial tariff of 2021: 23 % up to a cap of 10."""
    return _cents(min(amount * Decimal("0.23"), Decimal("10")))


def tariff_north_trial_2022(amount: Decimal) -> Decimal:
    """North trial tariff of 2022: 14 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.14"), Decimal("63")))


def tariff_north_trial_2023(amount: Decimal) -> Decimal:
    """North trial tariff of 2023: 39 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.39"), Decimal("57")))


def tariff_south_basic_2015(amount: Decimal) -> Decimal:
    """South basic tariff of 2015: 25 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.25"), Decimal("26")))


def tariff_south_basic_2016(amount: Decimal) -> Decimal:
    """South basic tariff of 2016: 37 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.37"), Decimal("89")))


def tariff_south_basic_2017(amount: Decimal) -> Decimal:
    """South basic tariff of 2017: 8 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.08"), Decimal("68")))


def tariff_south_basic_2018(amount: Decimal) -> Decimal:
    """South basic tariff of 2018: 40 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.40"), Decimal("60")))


def tariff_south_basic_2019(amount: Decimal) -> Decimal:
    """South basic tariff of 2019: 30 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.30"), Decimal("61")))


def tariff_south_basic_2020(amount: Decimal) -> Decimal:
    """South basic tariff of 2020: 30 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.30"), Decimal("23")))


def tariff_south_basic_2021(amount: Decimal) -> Decimal:
    """South basic tariff of 2021: 35 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.35"), Decimal("61")))


def tariff_south_basic_2022(amount: Decimal) -> Decimal:
    """South basic tariff of 2022: 8 % up to a cap of 34."""
    return _cents(min(amount * Decimal("0.08"), Decimal("34")))


def tariff_south_basic_2023(amount: Decimal) -> Decimal:
    """South basic tariff of 2023: 9 % up to a cap of 36."""
    return _cents(min(amount * Decimal("0.09"), Decimal("36")))


def tariff_south_plus_2015(amount: Decimal) -> Decimal:
    """South plus tariff of 2015: 33 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.33"), Decimal("30")))


def tariff_south_plus_2016(amount: Decimal) -> Decimal:
    """South plus tariff of 2016: 12 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.12"), Decimal("53")))


def tariff_south_plus_2017(amount: Decimal) -> Decimal:
    """South plus tariff of 2017: 8 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.08"), Decimal("23")))


def tariff_south_plus_2018(amount: Decimal) -> Decimal:
    """South plus tariff of 2018: 5 % up to a cap of 82."""
    return _cents(min(amount * Decimal("0.05"), Decimal("82")))


def tariff_south_plus_2019(amount: Decimal) -> Decimal:
    """South plus tariff of 2019: 14 % up to a cap of 78."""
    return _cents(min(amount * Decimal("0.14"), Decimal("78")))


def tariff_south_plus_2020(amount: Decimal) -> Decimal:
    """South plus tariff of 2020: 11 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.11"), Decimal("56")))


def tariff_south_plus_2021(amount: Decimal) -> Decimal:
    """South plus tariff of 2021: 6 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.06"), Decimal("19")))


def tariff_south_plus_2022(amount: Decimal) -> Decimal:
    """South plus tariff of 2022: 18 % up to a cap of 88."""
    return _cents(min(amount * Decimal("0.18"), Decimal("88")))


def tariff_south_plus_2023(amount: Decimal) -> Decimal:
    """South plus tariff of 2023: 29 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.29"), Decimal("29")))


def tariff_south_pro_2015(amount: Decimal) -> Decimal:
    """South pro tariff of 2015: 21 % up to a cap of 54."""
    return _cents(min(amount * Decimal("0.21"), Decimal("54")))


def tariff_south_pro_2016(amount: Decimal) -> Decimal:
    """South pro tariff of 2016: 28 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.28"), Decimal("70")))


def tariff_south_pro_2017(amount: Decimal) -> Decimal:
    """South pro tariff of 2017: 12 % up to a cap of 24."""
    return _cents(min(amount * Decimal("0.12"), Decimal("24")))


def tariff_south_pro_2018(amount: Decimal) -> Decimal:
    """South pro tariff of 2018: 36 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.36"), Decimal("69")))


def tariff_south_pro_2019(amount: Decimal) -> Decimal:
    """South pro tariff of 2019: 35 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.35"), Decimal("71")))


def tariff_south_pro_2020(amount: Decimal) -> Decimal:
    """South pro tariff of 2020: 24 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.24"), Decimal("20")))


def tariff_south_pro_2021(amount: Decimal) -> Decimal:
    """South pro tariff of 2021: 14 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.14"), Decimal("23")))


def tariff_south_pro_2022(amount: Decimal) -> Decimal:
    """South pro tariff of 2022: 26 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.26"), Decimal("43")))


def tariff_south_pro_2023(amount: Decimal) -> Decimal:
    """South pro tariff of 2023: 35 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.35"), Decimal("30")))


def tariff_south_team_2015(amount: Decimal) -> Decimal:
    """South team tariff of 2015: 38 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.38"), Decimal("12")))


def tariff_south_team_2016(amount: Decimal) -> Decimal:
    """South team tariff of 2016: 18 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.18"), Decimal("77")))


def tariff_south_team_2017(amount: Decimal) -> Decimal:
    """South team tariff of 2017: 28 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.28"), Decimal("28")))


def tariff_south_team_2018(amount: Decimal) -> Decimal:
    """South team tariff of 2018: 39 % up to a cap of 13."""
    return _cents(min(amount * Decimal("0.39"), Decimal("13")))


def tariff_south_team_2019(amount: Decimal) -> Decimal:
    """South team tariff of 2019: 38 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.38"), Decimal("48")))


def tariff_south_team_2020(amount: Decimal) -> Decimal:
    """South team tariff of 2020: 10 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.10"), Decimal("43")))


def tariff_south_team_2021(amount: Decimal) -> Decimal:
    """South team tariff of 2021: 38 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.38"), Decimal("56")))


def tariff_south_team_2022(amount: Decimal) -> Decimal:
    """South team tariff of 2022: 15 % up to a cap of 55."""
    return _cents(min(amount * Decimal("0.15"), Decimal("55")))


def tariff_south_team_2023(amount: Decimal) -> Decimal:
    """South team tariff of 2023: 19 % up to a cap of 78."""
    return _cents(min(amount * Decimal("0.19"), Decimal("78")))


def tariff_south_enterprise_2015(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2015: 39 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.39"), Decimal("74")))


def tariff_south_enterprise_2016(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2016: 26 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.26"), Decimal("38")))


def tariff_south_enterprise_2017(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2017: 17 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.17"), Decimal("40")))


def tariff_south_enterprise_2018(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2018: 30 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.30"), Decimal("39")))


def tariff_south_enterprise_2019(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2019: 17 % up to a cap of 76."""
    return _cents(min(amount * Decimal("0.17"), Decimal("76")))


def tariff_south_enterprise_2020(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2020: 36 % up to a cap of 55."""
    return _cents(min(amount * Decimal("0.36"), Decimal("55")))


def tariff_south_enterprise_2021(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2021: 6 % up to a cap of 13."""
    return _cents(min(amount * Decimal("0.06"), Decimal("13")))


def tariff_south_enterprise_2022(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2022: 22 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.22"), Decimal("70")))


def tariff_south_enterprise_2023(amount: Decimal) -> Decimal:
    """South enterprise tariff of 2023: 21 % up to a cap of 34."""
    return _cents(min(amount * Decimal("0.21"), Decimal("34")))


def tariff_south_student_2015(amount: Decimal) -> Decimal:
    """South student tariff of 2015: 27 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.27"), Decimal("67")))


def tariff_south_student_2016(amount: Decimal) -> Decimal:
    """South student tariff of 2016: 27 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.27"), Decimal("56")))


def tariff_south_student_2017(amount: Decimal) -> Decimal:
    """South student tariff of 2017: 10 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.10"), Decimal("38")))


def tariff_south_student_2018(amount: Decimal) -> Decimal:
    """South student tariff of 2018: 11 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.11"), Decimal("39")))


def tariff_south_student_2019(amount: Decimal) -> Decimal:
    """South student tariff of 2019: 35 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.35"), Decimal("35")))


def tariff_south_student_2020(amount: Decimal) -> Decimal:
    """South student tariff of 2020: 26 % up to a cap of 36."""
    return _cents(min(amount * Decimal("0.26"), Decimal("36")))


def tariff_south_student_2021(amount: Decimal) -> Decimal:
    """South student tariff of 2021: 35 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.35"), Decimal("89")))


def tariff_south_student_2022(amount: Decimal) -> Decimal:
    """South student tariff of 2022: 5 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.05"), Decimal("71")))


def tariff_south_student_2023(amount: Decimal) -> Decimal:
    """South student tariff of 2023: 27 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.27"), Decimal("20")))


def tariff_south_senior_2015(amount: Decimal) -> Decimal:
    """South senior tariff of 2015: 12 % up to a cap of 59."""
    return _cents(min(amount * Decimal("0.12"), Decimal("59")))


def tariff_south_senior_2016(amount: Decimal) -> Decimal:
    """South senior tariff of 2016: 17 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.17"), Decimal("71")))


def tariff_south_senior_2017(amount: Decimal) -> Decimal:
    """South senior tariff of 2017: 16 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.16"), Decimal("65")))


def tariff_south_senior_2018(amount: Decimal) -> Decimal:
    """South senior tariff of 2018: 26 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.26"), Decimal("21")))


def tariff_south_senior_2019(amount: Decimal) -> Decimal:
    """South senior tariff of 2019: 30 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.30"), Decimal("69")))


def tariff_south_senior_2020(amount: Decimal) -> Decimal:
    """South senior tariff of 2020: 30 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.30"), Decimal("20")))


def tariff_south_senior_2021(amount: Decimal) -> Decimal:
    """South senior tariff of 2021: 15 % up to a cap of 31."""
    return _cents(min(amount * Decimal("0.15"), Decimal("31")))


def tariff_south_senior_2022(amount: Decimal) -> Decimal:
    """South senior tariff of 2022: 13 % up to a cap of 13."""
    return _cents(min(amount * Decimal("0.13"), Decimal("13")))


def tariff_south_senior_2023(amount: Decimal) -> Decimal:
    """South senior tariff of 2023: 14 % up to a cap of 85."""
    return _cents(min(amount * Decimal("0.14"), Decimal("85")))


def tariff_south_trial_2015(amount: Decimal) -> Decimal:
    """South trial tariff of 2015: 34 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.34"), Decimal("28")))


def tariff_south_trial_2016(amount: Decimal) -> Decimal:
    """South trial tariff of 2016: 35 % up to a cap of 54."""
    return _cents(min(amount * Decimal("0.35"), Decimal("54")))


def tariff_south_trial_2017(amount: Decimal) -> Decimal:
    """South trial tariff of 2017: 14 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.14"), Decimal("80")))


def tariff_south_trial_2018(amount: Decimal) -> Decimal:
    """South trial tariff of 2018: 40 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.40"), Decimal("26")))


def tariff_south_trial_2019(amount: Decimal) -> Decimal:
    """South trial tariff of 2019: 6 % up to a cap of 11."""
    return _cents(min(amount * Decimal("0.06"), Decimal("11")))


def tariff_south_trial_2020(amount: Decimal) -> Decimal:
    """South trial tariff of 2020: 11 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.11"), Decimal("77")))


def tariff_south_trial_2021(amount: Decimal) -> Decimal:
    """South trial tariff of 2021: 13 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.13"), Decimal("65")))


def tariff_south_trial_2022(amount: Decimal) -> Decimal:
    """South trial tariff of 2022: 17 % up to a cap of 37."""
    return _cents(min(amount * Decimal("0.17"), Decimal("37")))


def tariff_south_trial_2023(amount: Decimal) -> Decimal:
    """South trial tariff of 2023: 6 % up to a cap of 42."""
    return _cents(min(amount * Decimal("0.06"), Decimal("42")))


def tariff_east_basic_2015(amount: Decimal) -> Decimal:
    """East basic tariff of 2015: 18 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.18"), Decimal("47")))


def tariff_east_basic_2016(amount: Decimal) -> Decimal:
    """East basic tariff of 2016: 37 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.37"), Decimal("40")))


def tariff_east_basic_2017(amount: Decimal) -> Decimal:
    """East basic tariff of 2017: 25 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.25"), Decimal("43")))


def tariff_east_basic_2018(amount: Decimal) -> Decimal:
    """East basic tariff of 2018: 39 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.39"), Decimal("63")))


def tariff_east_basic_2019(amount: Decimal) -> Decimal:
    """East basic tariff of 2019: 13 % up to a cap of 17."""
    return _cents(min(amount * Decimal("0.13"), Decimal("17")))


def tariff_east_basic_2020(amount: Decimal) -> Decimal:
    """East basic tariff of 2020: 27 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.27"), Decimal("68")))


def tariff_east_basic_2021(amount: Decimal) -> Decimal:
    """East basic tariff of 2021: 38 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.38"), Decimal("63")))


def tariff_east_basic_2022(amount: Decimal) -> Decimal:
    """East basic tariff of 2022: 37 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.37"), Decimal("26")))


def tariff_east_basic_2023(amount: Decimal) -> Decimal:
    """East basic tariff of 2023: 39 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.39"), Decimal("29")))


def tariff_east_plus_2015(amount: Decimal) -> Decimal:
    """East plus tariff of 2015: 38 % up to a cap of 75."""
    return _cents(min(amount * Decimal("0.38"), Decimal("75")))


def tariff_east_plus_2016(amount: Decimal) -> Decimal:
    """East plus tariff of 2016: 6 % up to a cap of 66."""
    return _cents(min(amount * Decimal("0.06"), Decimal("66")))


def tariff_east_plus_2017(amount: Decimal) -> Decimal:
    """East plus tariff of 2017: 16 % up to a cap of 87."""
    return _cents(min(amount * Decimal("0.16"), Decimal("87")))


def tariff_east_plus_2018(amount: Decimal) -> Decimal:
    """East plus tariff of 2018: 5 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.05"), Decimal("29")))


def tariff_east_plus_2019(amount: Decimal) -> Decimal:
    """East plus tariff of 2019: 16 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.16"), Decimal("28")))


def tariff_east_plus_2020(amount: Decimal) -> Decimal:
    """East plus tariff of 2020: 35 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.35"), Decimal("89")))


def tariff_east_plus_2021(amount: Decimal) -> Decimal:
    """East plus tariff of 2021: 12 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.12"), Decimal("81")))


def tariff_east_plus_2022(amount: Decimal) -> Decimal:
    """East plus tariff of 2022: 8 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.08"), Decimal("51")))


def tariff_east_plus_2023(amount: Decimal) -> Decimal:
    """East plus tariff of 2023: 38 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.38"), Decimal("77")))


def tariff_east_pro_2015(amount: Decimal) -> Decimal:
    """East pro tariff of 2015: 40 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.40"), Decimal("71")))


def tariff_east_pro_2016(amount: Decimal) -> Decimal:
    """East pro tariff of 2016: 11 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.11"), Decimal("81")))


def tariff_east_pro_2017(amount: Decimal) -> Decimal:
    """East pro tariff of 2017: 8 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.08"), Decimal("41")))


def tariff_east_pro_2018(amount: Decimal) -> Decimal:
    """East pro tariff of 2018: 17 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.17"), Decimal("45")))


def tariff_east_pro_2019(amount: Decimal) -> Decimal:
    """East pro tariff of 2019: 7 % up to a cap of 22."""
    return _cents(min(amount * Decimal("0.07"), Decimal("22")))


def tariff_east_pro_2020(amount: Decimal) -> Decimal:
    """East pro tariff of 2020: 37 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.37"), Decimal("67")))


def tariff_east_pro_2021(amount: Decimal) -> Decimal:
    """East pro tariff of 2021: 40 % up to a cap of 13."""
    return _cents(min(amount * Decimal("0.40"), Decimal("13")))


def tariff_east_pro_2022(amount: Decimal) -> Decimal:
    """East pro tariff of 2022: 9 % up to a cap of 66."""
    return _cents(min(amount * Decimal("0.09"), Decimal("66")))


def tariff_east_pro_2023(amount: Decimal) -> Decimal:
    """East pro tariff of 2023: 25 % up to a cap of 88."""
    return _cents(min(amount * Decimal("0.25"), Decimal("88")))


def tariff_east_team_2015(amount: Decimal) -> Decimal:
    """East team tariff of 2015: 37 % up to a cap of 87."""
    return _cents(min(amount * Decimal("0.37"), Decimal("87")))


def tariff_east_team_2016(amount: Decimal) -> Decimal:
    """East team tariff of 2016: 37 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.37"), Decimal("35")))


def tariff_east_team_2017(amount: Decimal) -> Decimal:
    """East team tariff of 2017: 22 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.22"), Decimal("67")))


def tariff_east_team_2018(amount: Decimal) -> Decimal:
    """East team tariff of 2018: 37 % up to a cap of 78."""
    return _cents(min(amount * Decimal("0.37"), Decimal("78")))


def tariff_east_team_2019(amount: Decimal) -> Decimal:
    """East team tariff of 2019: 35 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.35"), Decimal("74")))


def tariff_east_team_2020(amount: Decimal) -> Decimal:
    """East team tariff of 2020: 20 % up to a cap of 76."""
    return _cents(min(amount * Decimal("0.20"), Decimal("76")))


def tariff_east_team_2021(amount: Decimal) -> Decimal:
    """East team tariff of 2021: 21 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.21"), Decimal("81")))


def tariff_east_team_2022(amount: Decimal) -> Decimal:
    """East team tariff of 2022: 17 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.17"), Decimal("67")))


def tariff_east_team_2023(amount: Decimal) -> Decimal:
    """East team tariff of 2023: 13 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.13"), Decimal("63")))


def tariff_east_enterprise_2015(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2015: 12 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.12"), Decimal("60")))


def tariff_east_enterprise_2016(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2016: 33 % up to a cap of 50."""
    return _cents(min(amount * Decimal("0.33"), Decimal("50")))


def tariff_east_enterprise_2017(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2017: 9 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.09"), Decimal("40")))


def tariff_east_enterprise_2018(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2018: 32 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.32"), Decimal("19")))


def tariff_east_enterprise_2019(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2019: 18 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.18"), Decimal("48")))


def tariff_east_enterprise_2020(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2020: 12 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.12"), Decimal("29")))


def tariff_east_enterprise_2021(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2021: 28 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.28"), Decimal("28")))


def tariff_east_enterprise_2022(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2022: 21 % up to a cap of 27."""
    return _cents(min(amount * Decimal("0.21"), Decimal("27")))


def tariff_east_enterprise_2023(amount: Decimal) -> Decimal:
    """East enterprise tariff of 2023: 34 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.34"), Decimal("38")))


def tariff_east_student_2015(amount: Decimal) -> Decimal:
    """East student tariff of 2015: 11 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.11"), Decimal("60")))


def tariff_east_student_2016(amount: Decimal) -> Decimal:
    """East student tariff of 2016: 36 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.36"), Decimal("30")))


def tariff_east_student_2017(amount: Decimal) -> Decimal:
    """East student tariff of 2017: 19 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.19"), Decimal("30")))


def tariff_east_student_2018(amount: Decimal) -> Decimal:
    """East student tariff of 2018: 32 % up to a cap of 75."""
    return _cents(min(amount * Decimal("0.32"), Decimal("75")))


def tariff_east_student_2019(amount: Decimal) -> Decimal:
    """East student tariff of 2019: 30 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.30"), Decimal("53")))


def tariff_east_student_2020(amount: Decimal) -> Decimal:
    """East student tariff of 2020: 31 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.31"), Decimal("35")))


def tariff_east_student_2021(amount: Decimal) -> Decimal:
    """East student tariff of 2021: 27 % up to a cap of 50."""
    return _cents(min(amount * Decimal("0.27"), Decimal("50")))


def tariff_east_student_2022(amount: Decimal) -> Decimal:
    """East student tariff of 2022: 10 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.10"), Decimal("56")))


def tariff_east_student_2023(amount: Decimal) -> Decimal:
    """East student tariff of 2023: 6 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.06"), Decimal("53")))


def tariff_east_senior_2015(amount: Decimal) -> Decimal:
    """East senior tariff of 2015: 40 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.40"), Decimal("68")))


def tariff_east_senior_2016(amount: Decimal) -> Decimal:
    """East senior tariff of 2016: 33 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.33"), Decimal("12")))


def tariff_east_senior_2017(amount: Decimal) -> Decimal:
    """East senior tariff of 2017: 29 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.29"), Decimal("52")))


def tariff_east_senior_2018(amount: Decimal) -> Decimal:
    """East senior tariff of 2018: 38 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.38"), Decimal("89")))


def tariff_east_senior_2019(amount: Decimal) -> Decimal:
    """East senior tariff of 2019: 23 % up to a cap of 75."""
    return _cents(min(amount * Decimal("0.23"), Decimal("75")))


def tariff_east_senior_2020(amount: Decimal) -> Decimal:
    """East senior tariff of 2020: 9 % up to a cap of 24."""
    return _cents(min(amount * Decimal("0.09"), Decimal("24")))


def tariff_east_senior_2021(amount: Decimal) -> Decimal:
    """East senior tariff of 2021: 19 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.19"), Decimal("23")))


def tariff_east_senior_2022(amount: Decimal) -> Decimal:
    """East senior tariff of 2022: 10 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.10"), Decimal("43")))


def tariff_east_senior_2023(amount: Decimal) -> Decimal:
    """East senior tariff of 2023: 22 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.22"), Decimal("15")))


def tariff_east_trial_2015(amount: Decimal) -> Decimal:
    """East trial tariff of 2015: 16 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.16"), Decimal("44")))


def tariff_east_trial_2016(amount: Decimal) -> Decimal:
    """East trial tariff of 2016: 13 % up to a cap of 64."""
    return _cents(min(amount * Decimal("0.13"), Decimal("64")))


def tariff_east_trial_2017(amount: Decimal) -> Decimal:
    """East trial tariff of 2017: 21 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.21"), Decimal("61")))


def tariff_east_trial_2018(amount: Decimal) -> Decimal:
    """East trial tariff of 2018: 14 % up to a cap of 78."""
    return _cents(min(amount * Decimal("0.14"), Decimal("78")))


def tariff_east_trial_2019(amount: Decimal) -> Decimal:
    """East trial tariff of 2019: 37 % up to a cap of 83."""
    return _cents(min(amount * Decimal("0.37"), Decimal("83")))


def tariff_east_trial_2020(amount: Decimal) -> Decimal:
    """East trial tariff of 2020: 36 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.36"), Decimal("51")))


def tariff_east_trial_2021(amount: Decimal) -> Decimal:
    """East trial tariff of 2021: 10 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.10"), Decimal("45")))


def tariff_east_trial_2022(amount: Decimal) -> Decimal:
    """East trial tariff of 2022: 8 % up to a cap of 33."""
    return _cents(min(amount * Decimal("0.08"), Decimal("33")))


def tariff_east_trial_2023(amount: Decimal) -> Decimal:
    """East trial tariff of 2023: 32 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.32"), Decimal("19")))


def tariff_west_basic_2015(amount: Decimal) -> Decimal:
    """West basic tariff of 2015: 22 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.22"), Decimal("12")))


def tariff_west_basic_2016(amount: Decimal) -> Decimal:
    """West basic tariff of 2016: 10 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.10"), Decimal("43")))


def tariff_west_basic_2017(amount: Decimal) -> Decimal:
    """West basic tariff of 2017: 10 % up to a cap of 87."""
    return _cents(min(amount * Decimal("0.10"), Decimal("87")))


def tariff_west_basic_2018(amount: Decimal) -> Decimal:
    """West basic tariff of 2018: 19 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.19"), Decimal("18")))


def tariff_west_basic_2019(amount: Decimal) -> Decimal:
    """West basic tariff of 2019: 21 % up to a cap of 25."""
    return _cents(min(amount * Decimal("0.21"), Decimal("25")))


def tariff_west_basic_2020(amount: Decimal) -> Decimal:
    """West basic tariff of 2020: 34 % up to a cap of 11."""
    return _cents(min(amount * Decimal("0.34"), Decimal("11")))


def tariff_west_basic_2021(amount: Decimal) -> Decimal:
    """West basic tariff of 2021: 26 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.26"), Decimal("80")))


def tariff_west_basic_2022(amount: Decimal) -> Decimal:
    """West basic tariff of 2022: 31 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.31"), Decimal("44")))


def tariff_west_basic_2023(amount: Decimal) -> Decimal:
    """West basic tariff of 2023: 13 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.13"), Decimal("15")))


def tariff_west_plus_2015(amount: Decimal) -> Decimal:
    """West plus tariff of 2015: 38 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.38"), Decimal("40")))


def tariff_west_plus_2016(amount: Decimal) -> Decimal:
    """West plus tariff of 2016: 12 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.12"), Decimal("30")))


def tariff_west_plus_2017(amount: Decimal) -> Decimal:
    """West plus tariff of 2017: 21 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.21"), Decimal("16")))


def tariff_west_plus_2018(amount: Decimal) -> Decimal:
    """West plus tariff of 2018: 16 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.16"), Decimal("35")))


def tariff_west_plus_2019(amount: Decimal) -> Decimal:
    """West plus tariff of 2019: 24 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.24"), Decimal("90")))


def tariff_west_plus_2020(amount: Decimal) -> Decimal:
    """West plus tariff of 2020: 24 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.24"), Decimal("77")))


def tariff_west_plus_2021(amount: Decimal) -> Decimal:
    """West plus tariff of 2021: 18 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.18"), Decimal("47")))


def tariff_west_plus_2022(amount: Decimal) -> Decimal:
    """West plus tariff of 2022: 33 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.33"), Decimal("74")))


def tariff_west_plus_2023(amount: Decimal) -> Decimal:
    """West plus tariff of 2023: 16 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.16"), Decimal("44")))


def tariff_west_pro_2015(amount: Decimal) -> Decimal:
    """West pro tariff of 2015: 27 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.27"), Decimal("12")))


def tariff_west_pro_2016(amount: Decimal) -> Decimal:
    """West pro tariff of 2016: 21 % up to a cap of 14."""
    return _cents(min(amount * Decimal("0.21"), Decimal("14")))


def tariff_west_pro_2017(amount: Decimal) -> Decimal:
    """West pro tariff of 2017: 5 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.05"), Decimal("12")))


def tariff_west_pro_2018(amount: Decimal) -> Decimal:
    """West pro tariff of 2018: 37 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.37"), Decimal("80")))


def tariff_west_pro_2019(amount: Decimal) -> Decimal:
    """West pro tariff of 2019: 17 % up to a cap of 75."""
    return _cents(min(amount * Decimal("0.17"), Decimal("75")))


def tariff_west_pro_2020(amount: Decimal) -> Decimal:
    """West pro tariff of 2020: 35 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.35"), Decimal("41")))


def tariff_west_pro_2021(amount: Decimal) -> Decimal:
    """West pro tariff of 2021: 33 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.33"), Decimal("23")))


def tariff_west_pro_2022(amount: Decimal) -> Decimal:
    """West pro tariff of 2022: 32 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.32"), Decimal("73")))


def tariff_west_pro_2023(amount: Decimal) -> Decimal:
    """West pro tariff of 2023: 39 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.39"), Decimal("60")))


def tariff_west_team_2015(amount: Decimal) -> Decimal:
    """West team tariff of 2015: 37 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.37"), Decimal("49")))


def tariff_west_team_2016(amount: Decimal) -> Decimal:
    """West team tariff of 2016: 18 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.18"), Decimal("39")))


def tariff_west_team_2017(amount: Decimal) -> Decimal:
    """West team tariff of 2017: 26 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.26"), Decimal("35")))


def tariff_west_team_2018(amount: Decimal) -> Decimal:
    """West team tariff of 2018: 13 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.13"), Decimal("61")))


def tariff_west_team_2019(amount: Decimal) -> Decimal:
    """West team tariff of 2019: 27 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.27"), Decimal("16")))


def tariff_west_team_2020(amount: Decimal) -> Decimal:
    """West team tariff of 2020: 13 % up to a cap of 11."""
    return _cents(min(amount * Decimal("0.13"), Decimal("11")))


def tariff_west_team_2021(amount: Decimal) -> Decimal:
    """West team tariff of 2021: 9 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.09"), Decimal("90")))


def tariff_west_team_2022(amount: Decimal) -> Decimal:
    """West team tariff of 2022: 21 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.21"), Decimal("65")))


def tariff_west_team_2023(amount: Decimal) -> Decimal:
    """West team tariff of 2023: 15 % up to a cap of 17."""
    return _cents(min(amount * Decimal("0.15"), Decimal("17")))


def tariff_west_enterprise_2015(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2015: 10 % up to a cap of 58."""
    return _cents(min(amount * Decimal("0.10"), Decimal("58")))


def tariff_west_enterprise_2016(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2016: 37 % up to a cap of 46."""
    return _cents(min(amount * Decimal("0.37"), Decimal("46")))


def tariff_west_enterprise_2017(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2017: 20 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.20"), Decimal("47")))


def tariff_west_enterprise_2018(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2018: 7 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.07"), Decimal("68")))


def tariff_west_enterprise_2019(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2019: 16 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.16"), Decimal("30")))


def tariff_west_enterprise_2020(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2020: 22 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.22"), Decimal("67")))


def tariff_west_enterprise_2021(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2021: 5 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.05"), Decimal("43")))


def tariff_west_enterprise_2022(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2022: 28 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.28"), Decimal("52")))


def tariff_west_enterprise_2023(amount: Decimal) -> Decimal:
    """West enterprise tariff of 2023: 40 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.40"), Decimal("51")))


def tariff_west_student_2015(amount: Decimal) -> Decimal:
    """West student tariff of 2015: 20 % up to a cap of 14."""
    return _cents(min(amount * Decimal("0.20"), Decimal("14")))


def tariff_west_student_2016(amount: Decimal) -> Decimal:
    """West student tariff of 2016: 24 % up to a cap of 37."""
    return _cents(min(amount * Decimal("0.24"), Decimal("37")))


def tariff_west_student_2017(amount: Decimal) -> Decimal:
    """West student tariff of 2017: 27 % up to a cap of 33."""
    return _cents(min(amount * Decimal("0.27"), Decimal("33")))


def tariff_west_student_2018(amount: Decimal) -> Decimal:
    """West student tariff of 2018: 5 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.05"), Decimal("52")))


def tariff_west_student_2019(amount: Decimal) -> Decimal:
    """West student tariff of 2019: 29 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.29"), Decimal("20")))


def tariff_west_student_2020(amount: Decimal) -> Decimal:
    """West student tariff of 2020: 35 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.35"), Decimal("45")))


def tariff_west_student_2021(amount: Decimal) -> Decimal:
    """West student tariff of 2021: 37 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.37"), Decimal("35")))


def tariff_west_student_2022(amount: Decimal) -> Decimal:
    """West student tariff of 2022: 20 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.20"), Decimal("74")))


def tariff_west_student_2023(amount: Decimal) -> Decimal:
    """West student tariff of 2023: 5 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.05"), Decimal("21")))


def tariff_west_senior_2015(amount: Decimal) -> Decimal:
    """West senior tariff of 2015: 21 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.21"), Decimal("21")))


def tariff_west_senior_2016(amount: Decimal) -> Decimal:
    """West senior tariff of 2016: 14 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.14"), Decimal("61")))


def tariff_west_senior_2017(amount: Decimal) -> Decimal:
    """West senior tariff of 2017: 7 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.07"), Decimal("60")))


def tariff_west_senior_2018(amount: Decimal) -> Decimal:
    """West senior tariff of 2018: 6 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.06"), Decimal("48")))


def tariff_west_senior_2019(amount: Decimal) -> Decimal:
    """West senior tariff of 2019: 24 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.24"), Decimal("90")))


def tariff_west_senior_2020(amount: Decimal) -> Decimal:
    """West senior tariff of 2020: 19 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.19"), Decimal("20")))


def tariff_west_senior_2021(amount: Decimal) -> Decimal:
    """West senior tariff of 2021: 38 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.38"), Decimal("29")))


def tariff_west_senior_2022(amount: Decimal) -> Decimal:
    """West senior tariff of 2022: 29 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.29"), Decimal("51")))


def tariff_west_senior_2023(amount: Decimal) -> Decimal:
    """West senior tariff of 2023: 36 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.36"), Decimal("29")))


def tariff_west_trial_2015(amount: Decimal) -> Decimal:
    """West trial tariff of 2015: 23 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.23"), Decimal("89")))


def tariff_west_trial_2016(amount: Decimal) -> Decimal:
    """West trial tariff of 2016: 14 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.14"), Decimal("15")))


def tariff_west_trial_2017(amount: Decimal) -> Decimal:
    """West trial tariff of 2017: 37 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.37"), Decimal("90")))


def tariff_west_trial_2018(amount: Decimal) -> Decimal:
    """West trial tariff of 2018: 32 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.32"), Decimal("74")))


def tariff_west_trial_2019(amount: Decimal) -> Decimal:
    """West trial tariff of 2019: 13 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.13"), Decimal("77")))


def tariff_west_trial_2020(amount: Decimal) -> Decimal:
    """West trial tariff of 2020: 37 % up to a cap of 82."""
    return _cents(min(amount * Decimal("0.37"), Decimal("82")))


def tariff_west_trial_2021(amount: Decimal) -> Decimal:
    """West trial tariff of 2021: 6 % up to a cap of 84."""
    return _cents(min(amount * Decimal("0.06"), Decimal("84")))


def tariff_west_trial_2022(amount: Decimal) -> Decimal:
    """West trial tariff of 2022: 19 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.19"), Decimal("20")))


def tariff_west_trial_2023(amount: Decimal) -> Decimal:
    """West trial tariff of 2023: 6 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.06"), Decimal("15")))


def tariff_central_basic_2015(amount: Decimal) -> Decimal:
    """Central basic tariff of 2015: 13 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.13"), Decimal("56")))


def tariff_central_basic_2016(amount: Decimal) -> Decimal:
    """Central basic tariff of 2016: 11 % up to a cap of 58."""
    return _cents(min(amount * Decimal("0.11"), Decimal("58")))


def tariff_central_basic_2017(amount: Decimal) -> Decimal:
    """Central basic tariff of 2017: 33 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.33"), Decimal("81")))


def tariff_central_basic_2018(amount: Decimal) -> Decimal:
    """Central basic tariff of 2018: 8 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.08"), Decimal("90")))


def tariff_central_basic_2019(amount: Decimal) -> Decimal:
    """Central basic tariff of 2019: 6 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.06"), Decimal("90")))


def tariff_central_basic_2020(amount: Decimal) -> Decimal:
    """Central basic tariff of 2020: 39 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.39"), Decimal("41")))


def tariff_central_basic_2021(amount: Decimal) -> Decimal:
    """Central basic tariff of 2021: 36 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.36"), Decimal("43")))


def tariff_central_basic_2022(amount: Decimal) -> Decimal:
    """Central basic tariff of 2022: 5 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.05"), Decimal("68")))


def tariff_central_basic_2023(amount: Decimal) -> Decimal:
    """Central basic tariff of 2023: 9 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.09"), Decimal("74")))


def tariff_central_plus_2015(amount: Decimal) -> Decimal:
    """Central plus tariff of 2015: 39 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.39"), Decimal("21")))


def tariff_central_plus_2016(amount: Decimal) -> Decimal:
    """Central plus tariff of 2016: 38 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.38"), Decimal("18")))


def tariff_central_plus_2017(amount: Decimal) -> Decimal:
    """Central plus tariff of 2017: 35 % up to a cap of 42."""
    return _cents(min(amount * Decimal("0.35"), Decimal("42")))


def tariff_central_plus_2018(amount: Decimal) -> Decimal:
    """Central plus tariff of 2018: 9 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.09"), Decimal("43")))


def tariff_central_plus_2019(amount: Decimal) -> Decimal:
    """Central plus tariff of 2019: 20 % up to a cap of 36."""
    return _cents(min(amount * Decimal("0.20"), Decimal("36")))


def tariff_central_plus_2020(amount: Decimal) -> Decimal:
    """Central plus tariff of 2020: 19 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.19"), Decimal("68")))


def tariff_central_plus_2021(amount: Decimal) -> Decimal:
    """Central plus tariff of 2021: 36 % up to a cap of 58."""
    return _cents(min(amount * Decimal("0.36"), Decimal("58")))


def tariff_central_plus_2022(amount: Decimal) -> Decimal:
    """Central plus tariff of 2022: 9 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.09"), Decimal("71")))


def tariff_central_plus_2023(amount: Decimal) -> Decimal:
    """Central plus tariff of 2023: 23 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.23"), Decimal("15")))


def tariff_central_pro_2015(amount: Decimal) -> Decimal:
    """Central pro tariff of 2015: 17 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.17"), Decimal("19")))


def tariff_central_pro_2016(amount: Decimal) -> Decimal:
    """Central pro tariff of 2016: 14 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.14"), Decimal("52")))


def tariff_central_pro_2017(amount: Decimal) -> Decimal:
    """Central pro tariff of 2017: 21 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.21"), Decimal("48")))


def tariff_central_pro_2018(amount: Decimal) -> Decimal:
    """Central pro tariff of 2018: 13 % up to a cap of 11."""
    return _cents(min(amount * Decimal("0.13"), Decimal("11")))


def tariff_central_pro_2019(amount: Decimal) -> Decimal:
    """Central pro tariff of 2019: 35 % up to a cap of 17."""
    return _cents(min(amount * Decimal("0.35"), Decimal("17")))


def tariff_central_pro_2020(amount: Decimal) -> Decimal:
    """Central pro tariff of 2020: 36 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.36"), Decimal("44")))


def tariff_central_pro_2021(amount: Decimal) -> Decimal:
    """Central pro tariff of 2021: 11 % up to a cap of 37."""
    return _cents(min(amount * Decimal("0.11"), Decimal("37")))


def tariff_central_pro_2022(amount: Decimal) -> Decimal:
    """Central pro tariff of 2022: 36 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.36"), Decimal("47")))


def tariff_central_pro_2023(amount: Decimal) -> Decimal:
    """Central pro tariff of 2023: 38 % up to a cap of 46."""
    return _cents(min(amount * Decimal("0.38"), Decimal("46")))


def tariff_central_team_2015(amount: Decimal) -> Decimal:
    """Central team tariff of 2015: 34 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.34"), Decimal("69")))


def tariff_central_team_2016(amount: Decimal) -> Decimal:
    """Central team tariff of 2016: 34 % up to a cap of 25."""
    return _cents(min(amount * Decimal("0.34"), Decimal("25")))


def tariff_central_team_2017(amount: Decimal) -> Decimal:
    """Central team tariff of 2017: 40 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.40"), Decimal("35")))


def tariff_central_team_2018(amount: Decimal) -> Decimal:
    """Central team tariff of 2018: 24 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.24"), Decimal("20")))


def tariff_central_team_2019(amount: Decimal) -> Decimal:
    """Central team tariff of 2019: 35 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.35"), Decimal("12")))


def tariff_central_team_2020(amount: Decimal) -> Decimal:
    """Central team tariff of 2020: 23 % up to a cap of 68."""
    return _cents(min(amount * Decimal("0.23"), Decimal("68")))


def tariff_central_team_2021(amount: Decimal) -> Decimal:
    """Central team tariff of 2021: 9 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.09"), Decimal("74")))


def tariff_central_team_2022(amount: Decimal) -> Decimal:
    """Central team tariff of 2022: 33 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.33"), Decimal("44")))


def tariff_central_team_2023(amount: Decimal) -> Decimal:
    """Central team tariff of 2023: 29 % up to a cap of 36."""
    return _cents(min(amount * Decimal("0.29"), Decimal("36")))


def tariff_central_enterprise_2015(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2015: 18 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.18"), Decimal("19")))


def tariff_central_enterprise_2016(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2016: 10 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.10"), Decimal("28")))


def tariff_central_enterprise_2017(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2017: 38 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.38"), Decimal("43")))


def tariff_central_enterprise_2018(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2018: 28 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.28"), Decimal("26")))


def tariff_central_enterprise_2019(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2019: 37 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.37"), Decimal("45")))


def tariff_central_enterprise_2020(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2020: 12 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.12"), Decimal("56")))


def tariff_central_enterprise_2021(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2021: 19 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.19"), Decimal("73")))


def tariff_central_enterprise_2022(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2022: 36 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.36"), Decimal("60")))


def tariff_central_enterprise_2023(amount: Decimal) -> Decimal:
    """Central enterprise tariff of 2023: 6 % up to a cap of 30."""
    return _cents(min(amount * Decimal("0.06"), Decimal("30")))


def tariff_central_student_2015(amount: Decimal) -> Decimal:
    """Central student tariff of 2015: 5 % up to a cap of 72."""
    return _cents(min(amount * Decimal("0.05"), Decimal("72")))


def tariff_central_student_2016(amount: Decimal) -> Decimal:
    """Central student tariff of 2016: 33 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.33"), Decimal("61")))


def tariff_central_student_2017(amount: Decimal) -> Decimal:
    """Central student tariff of 2017: 24 % up to a cap of 28."""
    return _cents(min(amount * Decimal("0.24"), Decimal("28")))


def tariff_central_student_2018(amount: Decimal) -> Decimal:
    """Central student tariff of 2018: 31 % up to a cap of 54."""
    return _cents(min(amount * Decimal("0.31"), Decimal("54")))


def tariff_central_student_2019(amount: Decimal) -> Decimal:
    """Central student tariff of 2019: 29 % up to a cap of 50."""
    return _cents(min(amount * Decimal("0.29"), Decimal("50")))


def tariff_central_student_2020(amount: Decimal) -> Decimal:
    """Central student tariff of 2020: 12 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.12"), Decimal("52")))


def tariff_central_student_2021(amount: Decimal) -> Decimal:
    """Central student tariff of 2021: 5 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.05"), Decimal("51")))


def tariff_central_student_2022(amount: Decimal) -> Decimal:
    """Central student tariff of 2022: 26 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.26"), Decimal("60")))


def tariff_central_student_2023(amount: Decimal) -> Decimal:
    """Central student tariff of 2023: 12 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.12"), Decimal("35")))


def tariff_central_senior_2015(amount: Decimal) -> Decimal:
    """Central senior tariff of 2015: 5 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.05"), Decimal("47")))


def tariff_central_senior_2016(amount: Decimal) -> Decimal:
    """Central senior tariff of 2016: 21 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.21"), Decimal("57")))


def tariff_central_senior_2017(amount: Decimal) -> Decimal:
    """Central senior tariff of 2017: 9 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.09"), Decimal("60")))


def tariff_central_senior_2018(amount: Decimal) -> Decimal:
    """Central senior tariff of 2018: 29 % up to a cap of 85."""
    return _cents(min(amount * Decimal("0.29"), Decimal("85")))


def tariff_central_senior_2019(amount: Decimal) -> Decimal:
    """Central senior tariff of 2019: 9 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.09"), Decimal("56")))


def tariff_central_senior_2020(amount: Decimal) -> Decimal:
    """Central senior tariff of 2020: 32 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.32"), Decimal("45")))


def tariff_central_senior_2021(amount: Decimal) -> Decimal:
    """Central senior tariff of 2021: 8 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.08"), Decimal("45")))


def tariff_central_senior_2022(amount: Decimal) -> Decimal:
    """Central senior tariff of 2022: 11 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.11"), Decimal("16")))


def tariff_central_senior_2023(amount: Decimal) -> Decimal:
    """Central senior tariff of 2023: 23 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.23"), Decimal("29")))


def tariff_central_trial_2015(amount: Decimal) -> Decimal:
    """Central trial tariff of 2015: 20 % up to a cap of 44."""
    return _cents(min(amount * Decimal("0.20"), Decimal("44")))


def tariff_central_trial_2016(amount: Decimal) -> Decimal:
    """Central trial tariff of 2016: 32 % up to a cap of 75."""
    return _cents(min(amount * Decimal("0.32"), Decimal("75")))


def tariff_central_trial_2017(amount: Decimal) -> Decimal:
    """Central trial tariff of 2017: 25 % up to a cap of 34."""
    return _cents(min(amount * Decimal("0.25"), Decimal("34")))


def tariff_central_trial_2018(amount: Decimal) -> Decimal:
    """Central trial tariff of 2018: 28 % up to a cap of 64."""
    return _cents(min(amount * Decimal("0.28"), Decimal("64")))


def tariff_central_trial_2019(amount: Decimal) -> Decimal:
    """Central trial tariff of 2019: 6 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.06"), Decimal("90")))


def tariff_central_trial_2020(amount: Decimal) -> Decimal:
    """Central trial tariff of 2020: 30 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.30"), Decimal("80")))


def tariff_central_trial_2021(amount: Decimal) -> Decimal:
    """Central trial tariff of 2021: 40 % up to a cap of 36."""
    return _cents(min(amount * Decimal("0.40"), Decimal("36")))


def tariff_central_trial_2022(amount: Decimal) -> Decimal:
    """Central trial tariff of 2022: 10 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.10"), Decimal("16")))


def tariff_central_trial_2023(amount: Decimal) -> Decimal:
    """Central trial tariff of 2023: 31 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.31"), Decimal("67")))


def tariff_coastal_basic_2015(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2015: 13 % up to a cap of 46."""
    return _cents(min(amount * Decimal("0.13"), Decimal("46")))


def tariff_coastal_basic_2016(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2016: 36 % up to a cap of 16."""
    return _cents(min(amount * Decimal("0.36"), Decimal("16")))


def tariff_coastal_basic_2017(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2017: 40 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.40"), Decimal("26")))


def tariff_coastal_basic_2018(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2018: 15 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.15"), Decimal("70")))


def tariff_coastal_basic_2019(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2019: 31 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.31"), Decimal("53")))


def tariff_coastal_basic_2020(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2020: 23 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.23"), Decimal("48")))


def tariff_coastal_basic_2021(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2021: 21 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.21"), Decimal("43")))


def tariff_coastal_basic_2022(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2022: 30 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.30"), Decimal("40")))


def tariff_coastal_basic_2023(amount: Decimal) -> Decimal:
    """Coastal basic tariff of 2023: 24 % up to a cap of 71."""
    return _cents(min(amount * Decimal("0.24"), Decimal("71")))


def tariff_coastal_plus_2015(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2015: 40 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.40"), Decimal("60")))


def tariff_coastal_plus_2016(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2016: 12 % up to a cap of 31."""
    return _cents(min(amount * Decimal("0.12"), Decimal("31")))


def tariff_coastal_plus_2017(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2017: 15 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.15"), Decimal("19")))


def tariff_coastal_plus_2018(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2018: 18 % up to a cap of 74."""
    return _cents(min(amount * Decimal("0.18"), Decimal("74")))


def tariff_coastal_plus_2019(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2019: 36 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.36"), Decimal("80")))


def tariff_coastal_plus_2020(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2020: 19 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.19"), Decimal("67")))


def tariff_coastal_plus_2021(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2021: 26 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.26"), Decimal("67")))


def tariff_coastal_plus_2022(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2022: 32 % up to a cap of 27."""
    return _cents(min(amount * Decimal("0.32"), Decimal("27")))


def tariff_coastal_plus_2023(amount: Decimal) -> Decimal:
    """Coastal plus tariff of 2023: 40 % up to a cap of 34."""
    return _cents(min(amount * Decimal("0.40"), Decimal("34")))


def tariff_coastal_pro_2015(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2015: 20 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.20"), Decimal("21")))


def tariff_coastal_pro_2016(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2016: 16 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.16"), Decimal("53")))


def tariff_coastal_pro_2017(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2017: 40 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.40"), Decimal("21")))


def tariff_coastal_pro_2018(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2018: 25 % up to a cap of 40."""
    return _cents(min(amount * Decimal("0.25"), Decimal("40")))


def tariff_coastal_pro_2019(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2019: 28 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.28"), Decimal("43")))


def tariff_coastal_pro_2020(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2020: 17 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.17"), Decimal("12")))


def tariff_coastal_pro_2021(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2021: 31 % up to a cap of 59."""
    return _cents(min(amount * Decimal("0.31"), Decimal("59")))


def tariff_coastal_pro_2022(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2022: 31 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.31"), Decimal("77")))


def tariff_coastal_pro_2023(amount: Decimal) -> Decimal:
    """Coastal pro tariff of 2023: 18 % up to a cap of 58."""
    return _cents(min(amount * Decimal("0.18"), Decimal("58")))


def tariff_coastal_team_2015(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2015: 22 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.22"), Decimal("53")))


def tariff_coastal_team_2016(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2016: 8 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.08"), Decimal("73")))


def tariff_coastal_team_2017(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2017: 22 % up to a cap of 83."""
    return _cents(min(amount * Decimal("0.22"), Decimal("83")))


def tariff_coastal_team_2018(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2018: 28 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.28"), Decimal("26")))


def tariff_coastal_team_2019(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2019: 37 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.37"), Decimal("77")))


def tariff_coastal_team_2020(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2020: 18 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.18"), Decimal("21")))


def tariff_coastal_team_2021(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2021: 22 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.22"), Decimal("41")))


def tariff_coastal_team_2022(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2022: 29 % up to a cap of 61."""
    return _cents(min(amount * Decimal("0.29"), Decimal("61")))


def tariff_coastal_team_2023(amount: Decimal) -> Decimal:
    """Coastal team tariff of 2023: 33 % up to a cap of 65."""
    return _cents(min(amount * Decimal("0.33"), Decimal("65")))


def tariff_coastal_enterprise_2015(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2015: 24 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.24"), Decimal("12")))


def tariff_coastal_enterprise_2016(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2016: 13 % up to a cap of 14."""
    return _cents(min(amount * Decimal("0.13"), Decimal("14")))


def tariff_coastal_enterprise_2017(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2017: 32 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.32"), Decimal("70")))


def tariff_coastal_enterprise_2018(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2018: 36 % up to a cap of 10."""
    return _cents(min(amount * Decimal("0.36"), Decimal("10")))


def tariff_coastal_enterprise_2019(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2019: 9 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.09"), Decimal("60")))


def tariff_coastal_enterprise_2020(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2020: 38 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.38"), Decimal("69")))


def tariff_coastal_enterprise_2021(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2021: 33 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.33"), Decimal("41")))


def tariff_coastal_enterprise_2022(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2022: 11 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.11"), Decimal("38")))


def tariff_coastal_enterprise_2023(amount: Decimal) -> Decimal:
    """Coastal enterprise tariff of 2023: 14 % up to a cap of 29."""
    return _cents(min(amount * Decimal("0.14"), Decimal("29")))


def tariff_coastal_student_2015(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2015: 38 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.38"), Decimal("23")))


def tariff_coastal_student_2016(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2016: 34 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.34"), Decimal("20")))


def tariff_coastal_student_2017(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2017: 40 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.40"), Decimal("15")))


def tariff_coastal_student_2018(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2018: 5 % up to a cap of 26."""
    return _cents(min(amount * Decimal("0.05"), Decimal("26")))


def tariff_coastal_student_2019(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2019: 19 % up to a cap of 82."""
    return _cents(min(amount * Decimal("0.19"), Decimal("82")))


def tariff_coastal_student_2020(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2020: 7 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.07"), Decimal("48")))


def tariff_coastal_student_2021(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2021: 13 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.13"), Decimal("90")))


def tariff_coastal_student_2022(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2022: 21 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.21"), Decimal("77")))


def tariff_coastal_student_2023(amount: Decimal) -> Decimal:
    """Coastal student tariff of 2023: 32 % up to a cap of 24."""
    return _cents(min(amount * Decimal("0.32"), Decimal("24")))


def tariff_coastal_senior_2015(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2015: 11 % up to a cap of 19."""
    return _cents(min(amount * Decimal("0.11"), Decimal("19")))


def tariff_coastal_senior_2016(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2016: 24 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.24"), Decimal("77")))


def tariff_coastal_senior_2017(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2017: 17 % up to a cap of 59."""
    return _cents(min(amount * Decimal("0.17"), Decimal("59")))


def tariff_coastal_senior_2018(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2018: 21 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.21"), Decimal("38")))


def tariff_coastal_senior_2019(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2019: 5 % up to a cap of 11."""
    return _cents(min(amount * Decimal("0.05"), Decimal("11")))


def tariff_coastal_senior_2020(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2020: 39 % up to a cap of 48."""
    return _cents(min(amount * Decimal("0.39"), Decimal("48")))


def tariff_coastal_senior_2021(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2021: 34 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.34"), Decimal("45")))


def tariff_coastal_senior_2022(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2022: 25 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.25"), Decimal("41")))


def tariff_coastal_senior_2023(amount: Decimal) -> Decimal:
    """Coastal senior tariff of 2023: 35 % up to a cap of 77."""
    return _cents(min(amount * Decimal("0.35"), Decimal("77")))


def tariff_coastal_trial_2015(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2015: 20 % up to a cap of 80."""
    return _cents(min(amount * Decimal("0.20"), Decimal("80")))


def tariff_coastal_trial_2016(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2016: 20 % up to a cap of 13."""
    return _cents(min(amount * Decimal("0.20"), Decimal("13")))


def tariff_coastal_trial_2017(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2017: 31 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.31"), Decimal("49")))


def tariff_coastal_trial_2018(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2018: 8 % up to a cap of 12."""
    return _cents(min(amount * Decimal("0.08"), Decimal("12")))


def tariff_coastal_trial_2019(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2019: 17 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.17"), Decimal("73")))


def tariff_coastal_trial_2020(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2020: 31 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.31"), Decimal("20")))


def tariff_coastal_trial_2021(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2021: 21 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.21"), Decimal("39")))


def tariff_coastal_trial_2022(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2022: 32 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.32"), Decimal("57")))


def tariff_coastal_trial_2023(amount: Decimal) -> Decimal:
    """Coastal trial tariff of 2023: 19 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.19"), Decimal("73")))


def tariff_alpine_basic_2015(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2015: 7 % up to a cap of 53."""
    return _cents(min(amount * Decimal("0.07"), Decimal("53")))


def tariff_alpine_basic_2016(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2016: 31 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.31"), Decimal("56")))


def tariff_alpine_basic_2017(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2017: 30 % up to a cap of 35."""
    return _cents(min(amount * Decimal("0.30"), Decimal("35")))


def tariff_alpine_basic_2018(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2018: 5 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.05"), Decimal("47")))


def tariff_alpine_basic_2019(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2019: 37 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.37"), Decimal("18")))


def tariff_alpine_basic_2020(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2020: 18 % up to a cap of 73."""
    return _cents(min(amount * Decimal("0.18"), Decimal("73")))


def tariff_alpine_basic_2021(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2021: 17 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.17"), Decimal("49")))


def tariff_alpine_basic_2022(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2022: 17 % up to a cap of 39."""
    return _cents(min(amount * Decimal("0.17"), Decimal("39")))


def tariff_alpine_basic_2023(amount: Decimal) -> Decimal:
    """Alpine basic tariff of 2023: 34 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.34"), Decimal("38")))


def tariff_alpine_plus_2015(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2015: 21 % up to a cap of 47."""
    return _cents(min(amount * Decimal("0.21"), Decimal("47")))


def tariff_alpine_plus_2016(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2016: 11 % up to a cap of 89."""
    return _cents(min(amount * Decimal("0.11"), Decimal("89")))


def tariff_alpine_plus_2017(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2017: 36 % up to a cap of 88."""
    return _cents(min(amount * Decimal("0.36"), Decimal("88")))


def tariff_alpine_plus_2018(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2018: 16 % up to a cap of 38."""
    return _cents(min(amount * Decimal("0.16"), Decimal("38")))


def tariff_alpine_plus_2019(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2019: 36 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.36"), Decimal("63")))


def tariff_alpine_plus_2020(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2020: 8 % up to a cap of 86."""
    return _cents(min(amount * Decimal("0.08"), Decimal("86")))


def tariff_alpine_plus_2021(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2021: 14 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.14"), Decimal("60")))


def tariff_alpine_plus_2022(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2022: 8 % up to a cap of 37."""
    return _cents(min(amount * Decimal("0.08"), Decimal("37")))


def tariff_alpine_plus_2023(amount: Decimal) -> Decimal:
    """Alpine plus tariff of 2023: 6 % up to a cap of 86."""
    return _cents(min(amount * Decimal("0.06"), Decimal("86")))


def tariff_alpine_pro_2015(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2015: 14 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.14"), Decimal("63")))


def tariff_alpine_pro_2016(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2016: 8 % up to a cap of 17."""
    return _cents(min(amount * Decimal("0.08"), Decimal("17")))


def tariff_alpine_pro_2017(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2017: 16 % up to a cap of 60."""
    return _cents(min(amount * Decimal("0.16"), Decimal("60")))


def tariff_alpine_pro_2018(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2018: 33 % up to a cap of 50."""
    return _cents(min(amount * Decimal("0.33"), Decimal("50")))


def tariff_alpine_pro_2019(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2019: 12 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.12"), Decimal("20")))


def tariff_alpine_pro_2020(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2020: 15 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.15"), Decimal("52")))


def tariff_alpine_pro_2021(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2021: 17 % up to a cap of 33."""
    return _cents(min(amount * Decimal("0.17"), Decimal("33")))


def tariff_alpine_pro_2022(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2022: 38 % up to a cap of 69."""
    return _cents(min(amount * Decimal("0.38"), Decimal("69")))


def tariff_alpine_pro_2023(amount: Decimal) -> Decimal:
    """Alpine pro tariff of 2023: 7 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.07"), Decimal("49")))


def tariff_alpine_team_2015(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2015: 29 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.29"), Decimal("57")))


def tariff_alpine_team_2016(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2016: 26 % up to a cap of 66."""
    return _cents(min(amount * Decimal("0.26"), Decimal("66")))


def tariff_alpine_team_2017(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2017: 15 % up to a cap of 23."""
    return _cents(min(amount * Decimal("0.15"), Decimal("23")))


def tariff_alpine_team_2018(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2018: 5 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.05"), Decimal("20")))


def tariff_alpine_team_2019(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2019: 22 % up to a cap of 20."""
    return _cents(min(amount * Decimal("0.22"), Decimal("20")))


def tariff_alpine_team_2020(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2020: 27 % up to a cap of 63."""
    return _cents(min(amount * Decimal("0.27"), Decimal("63")))


def tariff_alpine_team_2021(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2021: 12 % up to a cap of 81."""
    return _cents(min(amount * Decimal("0.12"), Decimal("81")))


def tariff_alpine_team_2022(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2022: 18 % up to a cap of 58."""
    return _cents(min(amount * Decimal("0.18"), Decimal("58")))


def tariff_alpine_team_2023(amount: Decimal) -> Decimal:
    """Alpine team tariff of 2023: 27 % up to a cap of 49."""
    return _cents(min(amount * Decimal("0.27"), Decimal("49")))


def tariff_alpine_enterprise_2015(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2015: 32 % up to a cap of 21."""
    return _cents(min(amount * Decimal("0.32"), Decimal("21")))


def tariff_alpine_enterprise_2016(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2016: 8 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.08"), Decimal("70")))


def tariff_alpine_enterprise_2017(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2017: 17 % up to a cap of 57."""
    return _cents(min(amount * Decimal("0.17"), Decimal("57")))


def tariff_alpine_enterprise_2018(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2018: 39 % up to a cap of 67."""
    return _cents(min(amount * Decimal("0.39"), Decimal("67")))


def tariff_alpine_enterprise_2019(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2019: 17 % up to a cap of 51."""
    return _cents(min(amount * Decimal("0.17"), Decimal("51")))


def tariff_alpine_enterprise_2020(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2020: 28 % up to a cap of 70."""
    return _cents(min(amount * Decimal("0.28"), Decimal("70")))


def tariff_alpine_enterprise_2021(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2021: 6 % up to a cap of 90."""
    return _cents(min(amount * Decimal("0.06"), Decimal("90")))


def tariff_alpine_enterprise_2022(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2022: 31 % up to a cap of 41."""
    return _cents(min(amount * Decimal("0.31"), Decimal("41")))


def tariff_alpine_enterprise_2023(amount: Decimal) -> Decimal:
    """Alpine enterprise tariff of 2023: 30 % up to a cap of 15."""
    return _cents(min(amount * Decimal("0.30"), Decimal("15")))


def tariff_alpine_student_2015(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2015: 29 % up to a cap of 14."""
    return _cents(min(amount * Decimal("0.29"), Decimal("14")))


def tariff_alpine_student_2016(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2016: 34 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.34"), Decimal("18")))


def tariff_alpine_student_2017(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2017: 8 % up to a cap of 42."""
    return _cents(min(amount * Decimal("0.08"), Decimal("42")))


def tariff_alpine_student_2018(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2018: 17 % up to a cap of 18."""
    return _cents(min(amount * Decimal("0.17"), Decimal("18")))


def tariff_alpine_student_2019(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2019: 26 % up to a cap of 56."""
    return _cents(min(amount * Decimal("0.26"), Decimal("56")))


def tariff_alpine_student_2020(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2020: 22 % up to a cap of 52."""
    return _cents(min(amount * Decimal("0.22"), Decimal("52")))


def tariff_alpine_student_2021(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2021: 7 % up to a cap of 43."""
    return _cents(min(amount * Decimal("0.07"), Decimal("43")))


def tariff_alpine_student_2022(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2022: 25 % up to a cap of 45."""
    return _cents(min(amount * Decimal("0.25"), Decimal("45")))


def tariff_alpine_student_2023(amount: Decimal) -> Decimal:
    """Alpine student tariff of 2023: 24 % up to a cap of 10."""
    return _cents(min(amount * Decimal("0.24"), Decimal("10")))


def late_fee(amount: Decimal, days_late: int) -> Decimal:
    """0.5 % of the amount per day late, at most 10 % of the amount; nothing if on time."""
    if days_late <= 0:
        return Decimal("0.00")
    fee = amount * Decimal("0.005") * days_late
    return _cents(max(fee, amount * Decimal("0.10")))


def reminder_fee(reminders: int) -> Decimal:
    """A flat 2.50 per reminder sent after the first."""
    return _cents(Decimal("2.50") * max(0, reminders - 1))


def legacy_adjustment_00(amount: Decimal) -> Decimal:
    """Adjustment 0 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.92"))


def legacy_adjustment_01(amount: Decimal) -> Decimal:
    """Adjustment 1 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.96"))


def legacy_adjustment_02(amount: Decimal) -> Decimal:
    """Adjustment 2 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.76"))


def legacy_adjustment_03(amount: Decimal) -> Decimal:
    """Adjustment 3 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.81"))


def legacy_adjustment_04(amount: Decimal) -> Decimal:
    """Adjustment 4 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.08"))


def legacy_adjustment_05(amount: Decimal) -> Decimal:
    """Adjustment 5 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.03"))


def legacy_adjustment_06(amount: Decimal) -> Decimal:
    """Adjustment 6 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.29"))


def legacy_adjustment_07(amount: Decimal) -> Decimal:
    """Adjustment 7 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.13"))


def legacy_adjustment_08(amount: Decimal) -> Decimal:
    """Adjustment 8 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.60"))


def legacy_adjustment_09(amount: Decimal) -> Decimal:
    """Adjustment 9 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.91"))


def legacy_adjustment_10(amount: Decimal) -> Decimal:
    """Adjustment 10 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.59"))


def legacy_adjustment_11(amount: Decimal) -> Decimal:
    """Adjustment 11 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.99"))


def legacy_adjustment_12(amount: Decimal) -> Decimal:
    """Adjustment 12 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.49"))


def legacy_adjustment_13(amount: Decimal) -> Decimal:
    """Adjustment 13 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.32"))


def legacy_adjustment_14(amount: Decimal) -> Decimal:
    """Adjustment 14 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.55"))


def legacy_adjustment_15(amount: Decimal) -> Decimal:
    """Adjustment 15 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.63"))


def legacy_adjustment_16(amount: Decimal) -> Decimal:
    """Adjustment 16 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.16"))


def legacy_adjustment_17(amount: Decimal) -> Decimal:
    """Adjustment 17 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.63"))


def legacy_adjustment_18(amount: Decimal) -> Decimal:
    """Adjustment 18 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.23"))


def legacy_adjustment_19(amount: Decimal) -> Decimal:
    """Adjustment 19 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.01"))


def legacy_adjustment_20(amount: Decimal) -> Decimal:
    """Adjustment 20 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.94"))


def legacy_adjustment_21(amount: Decimal) -> Decimal:
    """Adjustment 21 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.38"))


def legacy_adjustment_22(amount: Decimal) -> Decimal:
    """Adjustment 22 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.88"))


def legacy_adjustment_23(amount: Decimal) -> Decimal:
    """Adjustment 23 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.98"))


def legacy_adjustment_24(amount: Decimal) -> Decimal:
    """Adjustment 24 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.19"))


def legacy_adjustment_25(amount: Decimal) -> Decimal:
    """Adjustment 25 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.77"))


def legacy_adjustment_26(amount: Decimal) -> Decimal:
    """Adjustment 26 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.30"))


def legacy_adjustment_27(amount: Decimal) -> Decimal:
    """Adjustment 27 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.41"))


def legacy_adjustment_28(amount: Decimal) -> Decimal:
    """Adjustment 28 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.40"))


def legacy_adjustment_29(amount: Decimal) -> Decimal:
    """Adjustment 29 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.58"))


def legacy_adjustment_30(amount: Decimal) -> Decimal:
    """Adjustment 30 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.46"))


def legacy_adjustment_31(amount: Decimal) -> Decimal:
    """Adjustment 31 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.76"))


def legacy_adjustment_32(amount: Decimal) -> Decimal:
    """Adjustment 32 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.10"))


def legacy_adjustment_33(amount: Decimal) -> Decimal:
    """Adjustment 33 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.65"))


def legacy_adjustment_34(amount: Decimal) -> Decimal:
    """Adjustment 34 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.25"))


def legacy_adjustment_35(amount: Decimal) -> Decimal:
    """Adjustment 35 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.50"))


def legacy_adjustment_36(amount: Decimal) -> Decimal:
    """Adjustment 36 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.96"))


def legacy_adjustment_37(amount: Decimal) -> Decimal:
    """Adjustment 37 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.20"))


def legacy_adjustment_38(amount: Decimal) -> Decimal:
    """Adjustment 38 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.31"))


def legacy_adjustment_39(amount: Decimal) -> Decimal:
    """Adjustment 39 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.52"))


def legacy_adjustment_40(amount: Decimal) -> Decimal:
    """Adjustment 40 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.08"))


def legacy_adjustment_41(amount: Decimal) -> Decimal:
    """Adjustment 41 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.83"))


def legacy_adjustment_42(amount: Decimal) -> Decimal:
    """Adjustment 42 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.04"))


def legacy_adjustment_43(amount: Decimal) -> Decimal:
    """Adjustment 43 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.61"))


def legacy_adjustment_44(amount: Decimal) -> Decimal:
    """Adjustment 44 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.70"))


def legacy_adjustment_45(amount: Decimal) -> Decimal:
    """Adjustment 45 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.69"))


def legacy_adjustment_46(amount: Decimal) -> Decimal:
    """Adjustment 46 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.41"))


def legacy_adjustment_47(amount: Decimal) -> Decimal:
    """Adjustment 47 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.20"))


def legacy_adjustment_48(amount: Decimal) -> Decimal:
    """Adjustment 48 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.54"))


def legacy_adjustment_49(amount: Decimal) -> Decimal:
    """Adjustment 49 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.13"))


def legacy_adjustment_50(amount: Decimal) -> Decimal:
    """Adjustment 50 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.09"))


def legacy_adjustment_51(amount: Decimal) -> Decimal:
    """Adjustment 51 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.33"))


def legacy_adjustment_52(amount: Decimal) -> Decimal:
    """Adjustment 52 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.79"))


def legacy_adjustment_53(amount: Decimal) -> Decimal:
    """Adjustment 53 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.10"))


def legacy_adjustment_54(amount: Decimal) -> Decimal:
    """Adjustment 54 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.26"))


def legacy_adjustment_55(amount: Decimal) -> Decimal:
    """Adjustment 55 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.12"))


def legacy_adjustment_56(amount: Decimal) -> Decimal:
    """Adjustment 56 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.53"))


def legacy_adjustment_57(amount: Decimal) -> Decimal:
    """Adjustment 57 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.63"))


def legacy_adjustment_58(amount: Decimal) -> Decimal:
    """Adjustment 58 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.90"))


def legacy_adjustment_59(amount: Decimal) -> Decimal:
    """Adjustment 59 from the 2012 migration; kept for old invoices."""
    return _cents(amount + Decimal("0.57"))
