"""Discount codes in the admin: a code made by staff, checked, found by exact code; a batch of
N unique codes with its CSV; the selected codes as CSV."""

import csv
import io

from promotions.models import Voucher


def form(**changes):
    data = {"code": "summer10", "name": "Summer ten", "campaign": "", "benefit": "percent", "value": "10",
            "min_order": "0", "limit": "100", "starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": "",
            **{f"{side}_{what}": "" for side in ("include", "exclude")
               for what in ("categories", "types", "products", "skus")}}
    data.update(changes)
    return data


def test_staff_make_a_code_in_capitals(admin_client):
    response = admin_client.post("/admin/promotions/voucher/add/", form(include_types="Film, Audio Album"))
    assert response.status_code == 302, response.content.decode()[:3000]
    made = Voucher.objects.get(code="SUMMER10")
    assert made.include_types == ["Film", "Audio Album"] and made.used == 0
    page = admin_client.get("/admin/promotions/voucher/?q=summer10").content.decode()
    assert "SUMMER10" in page


def test_a_percent_above_100_and_a_limit_above_the_maximum_are_form_errors(admin_client):
    response = admin_client.post("/admin/promotions/voucher/add/", form(value="150", limit="20000"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "between 1 and 100" in page and "a batch of codes" in page.lower()
    assert not Voucher.objects.exists()


def test_a_batch_of_unique_codes_downloads_as_csv(admin_client):
    source = Voucher(code="SPRING", name="Spring", benefit=Voucher.FIXED, value=500, limit=1,
                     include_skus=["A"])
    source.save()
    response = admin_client.post(f"/admin/promotions/voucher/{source.pk}/batch/", {"count": "50", "prefix": "sp"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    codes = {row["code"] for row in rows}
    assert len(rows) == 50 == len(codes) and all(code.startswith("SP") for code in codes)
    assert Voucher.objects.filter(campaign="SPRING").count() == 51
    copy = Voucher.objects.get(code=rows[0]["code"])
    assert (copy.benefit, copy.value, copy.limit, copy.include_skus, copy.used) == ("fixed", 500, 1, ["A"], 0)
    bad = admin_client.post(f"/admin/promotions/voucher/{source.pk}/batch/", {"count": "0", "prefix": "$"})
    assert bad.status_code == 200 and Voucher.objects.count() == 51


def test_selected_codes_download_as_csv(admin_client):
    for code in ("B1", "A1"):
        Voucher(code=code, name="x", value=5).save()
    ids = list(Voucher.objects.values_list("pk", flat=True))
    response = admin_client.post("/admin/promotions/voucher/", {"action": "download_csv",
                                                                "_selected_action": [str(i) for i in ids]})
    assert [row["code"] for row in csv.DictReader(io.StringIO(response.content.decode()))] == ["A1", "B1"]
